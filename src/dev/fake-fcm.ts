import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CryptoKey, exportPKCS8, generateKeyPair, jwtVerify } from 'jose';
import { FAILURES, type FakeFcmBehaviour, fcmError, readBody, sendJson } from './fake-fcm-wire.js';

export type { FakeFcmBehaviour } from './fake-fcm-wire.js';

/**
 * A development Firebase Cloud Messaging: a real HTTP server on 127.0.0.1 that speaks Google's OAuth token
 * endpoint (JWT-bearer grant, the assertion checked against the service account's public key) and FCM HTTP
 * v1's `projects/{id}/messages:send` (bearer token checked, messages recorded), with FCM's error bodies. It
 * makes its own service account, whose key file the caller writes where FCM_CREDENTIALS_FILE points: no key
 * is ever committed. The tests run it; in-memory and for development only.
 */

export interface FakeFcmMessage {
  token: string;
  notification: { title?: string; body?: string };
  data: Record<string, string>;
}

export interface FakeFcm {
  /** Base URL of the messaging API (FCM_ENDPOINT). */
  readonly url: string;
  /** The OAuth token endpoint (the key file's token_uri). */
  readonly tokenUrl: string;
  readonly projectId: string;
  /** The service account's JSON key file, as Google's console hands it out (private key included). */
  readonly serviceAccountKey: Record<string, string>;
  /** Messages FCM accepted, in order. */
  readonly messages: FakeFcmMessage[];
  /** Access tokens issued so far. */
  readonly tokensIssued: number;
  /** Most sends that were in flight at once. */
  readonly maxConcurrentSends: number;
  /** How sends to `pushToken` are answered; without a token, every send without its own behaviour. */
  behave(behaviour: FakeFcmBehaviour, pushToken?: string): void;
  /** Lifetime (`expires_in`, seconds) of the access tokens issued from now on. */
  setTokenLifetime(seconds: number): void;
  /** Every access token issued so far stops working (expired early, as Google may do). */
  expireAccessTokens(): void;
  /** The service's settings that point PUSH_TRANSPORT=fcm at this server, with the key file at `keyFile`. */
  env(keyFile: string): Record<string, string>;
  close(): Promise<void>;
}

const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
const SLOW_ANSWER_MS = 200;

export async function startFakeFcm(
  options: { port?: number; projectId?: string; onMessage?: (message: FakeFcmMessage) => void } = {},
): Promise<FakeFcm> {
  const projectId = options.projectId ?? 'accounts-dev';
  const clientEmail = `push-sender@${projectId}.iam.gserviceaccount.com`;
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const accessTokens = new Map<string, number>();
  const behaviours = new Map<string, FakeFcmBehaviour>();
  const messages: FakeFcmMessage[] = [];
  let everyone: FakeFcmBehaviour = 'ok';
  let tokenLifetime = 3600;
  let tokensIssued = 0;
  let inFlight = 0;
  let maxConcurrentSends = 0;
  let url = '';

  const issueToken = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const form = new URLSearchParams(await readBody(req));
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') {
      sendJson(res, 400, { error: 'unsupported_grant_type', error_description: 'Invalid grant_type.' });
      return;
    }
    try {
      const { payload } = await jwtVerify(form.get('assertion') ?? '', publicKey as CryptoKey, {
        algorithms: ['RS256'],
        issuer: clientEmail,
        audience: `${url}/token`,
        requiredClaims: ['iat', 'exp'],
      });
      const scopes = typeof payload.scope === 'string' ? payload.scope.split(' ') : [];
      // Google refuses assertions that live longer than an hour.
      if (!scopes.includes(FCM_SCOPE) || (payload.exp ?? 0) - (payload.iat ?? 0) > 3600) throw new Error();
    } catch {
      sendJson(res, 400, { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' });
      return;
    }
    const token = `ya29.fake-${randomBytes(24).toString('base64url')}`;
    accessTokens.set(token, Date.now() + tokenLifetime * 1000);
    tokensIssued += 1;
    sendJson(res, 200, { access_token: token, expires_in: tokenLifetime, token_type: 'Bearer' });
  };

  const send = async (
    req: IncomingMessage,
    res: ServerResponse,
    project: string,
    answered: () => void,
  ): Promise<void> => {
    const reply = (status: number, answer: unknown) => {
      answered();
      sendJson(res, status, answer);
    };
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    if ((accessTokens.get(bearer) ?? 0) <= Date.now()) {
      const [status, body] = FAILURES.unauthenticated;
      reply(status, body);
      return;
    }
    if (project !== projectId) {
      reply(403, fcmError(403, 'PERMISSION_DENIED', 'Permission denied.', 'SENDER_ID_MISMATCH'));
      return;
    }
    let message: FakeFcmMessage | undefined;
    try {
      message = (JSON.parse(await readBody(req)) as { message?: FakeFcmMessage }).message;
    } catch {
      // Answered below as FCM does.
    }
    if (typeof message?.token !== 'string' || message.token === '') {
      reply(400, fcmError(400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.'));
      return;
    }
    const behaviour = behaviours.get(message.token) ?? everyone;
    if (behaviour === 'stall') return; // Never answers: the client's timeout has to end the wait.
    if (behaviour === 'slow') await new Promise((resolve) => setTimeout(resolve, SLOW_ANSWER_MS));
    if (behaviour !== 'ok' && behaviour !== 'slow') {
      const [status, body] = FAILURES[behaviour];
      reply(status, body);
      return;
    }
    const accepted = {
      token: message.token,
      notification: message.notification ?? {},
      data: message.data ?? {},
    };
    messages.push(accepted);
    options.onMessage?.(accepted);
    reply(200, { name: `projects/${projectId}/messages/${messages.length}` });
  };

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const { pathname } = new URL(req.url ?? '/', url);
    const project = /^\/v1\/projects\/([^/]+)\/messages:send$/.exec(pathname)?.[1];
    let work: Promise<void>;
    if (req.method === 'POST' && pathname === '/token') work = issueToken(req, res);
    else if (req.method === 'POST' && project !== undefined) {
      // A send stops counting when it is answered (before the client can see the answer and start another)
      // or when its connection closes (a stalled send the client gave up on).
      let counted = true;
      const answered = () => {
        if (counted) inFlight -= 1;
        counted = false;
      };
      inFlight += 1;
      maxConcurrentSends = Math.max(maxConcurrentSends, inFlight);
      res.once('close', answered);
      work = send(req, res, decodeURIComponent(project), answered);
    } else work = Promise.resolve(sendJson(res, 404, fcmError(404, 'NOT_FOUND', 'Not found.')));
    work.catch(() => res.destroy());
  };

  const server = createServer(handle);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const serviceAccountKey = {
    type: 'service_account',
    project_id: projectId,
    private_key_id: randomBytes(20).toString('hex'),
    private_key: await exportPKCS8(privateKey),
    client_email: clientEmail,
    token_uri: `${url}/token`,
  };

  return {
    url,
    tokenUrl: `${url}/token`,
    projectId,
    serviceAccountKey,
    messages,
    get tokensIssued() {
      return tokensIssued;
    },
    get maxConcurrentSends() {
      return maxConcurrentSends;
    },
    behave(behaviour, pushToken) {
      if (pushToken === undefined) everyone = behaviour;
      else behaviours.set(pushToken, behaviour);
    },
    setTokenLifetime(seconds) {
      tokenLifetime = seconds;
    },
    expireAccessTokens() {
      for (const token of accessTokens.keys()) accessTokens.set(token, 0);
    },
    env(keyFile) {
      return {
        PUSH_TRANSPORT: 'fcm',
        FCM_PROJECT_ID: projectId,
        FCM_CREDENTIALS_FILE: keyFile,
        FCM_ENDPOINT: url,
      };
    },
    close() {
      return new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}
