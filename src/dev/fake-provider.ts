import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CryptoKey, exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';

/**
 * A development identity provider: a real HTTP server on 127.0.0.1 that issues access tokens and OIDC ID
 * tokens and answers userinfo, tokeninfo and JWKS the way real providers do. `accounts dev fake-provider`
 * runs it for trying social sign-up locally; the tests run the same server (never a mock inside the service).
 * In-memory and unauthenticated: for development only.
 */

/** How the provider misbehaves on userinfo, tokeninfo and JWKS (tests of the service's 502 handling). */
export type FailureMode = 'http-500' | 'html' | 'stall' | 'missing-id';

export interface IdTokenOptions {
  audience?: string;
  issuer?: string;
  /** Seconds from now; negative for a token that has already expired. */
  expiresIn?: number;
  /** `foreign`: signed by a key the JWKS does not hold, under the current key id (a forged token). */
  signer?: 'current' | 'foreign';
  /** The OIDC `email` claim. */
  email?: string;
  /** The OIDC `email_verified` claim (left out when undefined). */
  emailVerified?: boolean;
}

export interface FakeProvider {
  /** Base URL, e.g. http://127.0.0.1:9400 (also the ID tokens' issuer). */
  readonly url: string;
  readonly clientId: string;
  issueAccessToken(userId: string, options?: { clientId?: string }): string;
  issueIdToken(userId: string, options?: IdTokenOptions): Promise<string>;
  /** Replaces the signing key: the JWKS then lists only the new key. */
  rotateKey(): Promise<void>;
  failWith(mode: FailureMode | undefined): void;
  /** The PROVIDER_* settings that point provider `name` of the service at this server. */
  env(name: string, kind: 'userinfo' | 'id-token'): Record<string, string>;
  close(): Promise<void>;
}

interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

async function newSigningKey(): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = randomUUID();
  return { kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } };
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function bearer(req: IncomingMessage): string | undefined {
  return /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
}

export async function startFakeProvider(
  options: { port?: number; clientId?: string } = {},
): Promise<FakeProvider> {
  const clientId = options.clientId ?? 'accounts-dev';
  const accessTokens = new Map<string, { userId: string; clientId: string }>();
  let key = await newSigningKey();
  let failure: FailureMode | undefined;
  let url = '';

  const misbehave = (res: ServerResponse): boolean => {
    switch (failure) {
      case 'http-500':
        sendJson(res, 500, { error: 'internal' });
        return true;
      case 'html':
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<!doctype html><title>Maintenance</title><p>Back soon.</p>');
        return true;
      case 'stall':
        // Never answer: the service's timeout has to end the wait. close() drops the connection.
        return true;
      default:
        return false;
    }
  };

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const requestUrl = new URL(req.url ?? '/', url);
    const route = `${req.method} ${requestUrl.pathname}`;
    if (route === 'GET /token' || route === 'POST /token') {
      const userId = requestUrl.searchParams.get('user_id') ?? `user-${randomBytes(4).toString('hex')}`;
      const forClient = requestUrl.searchParams.get('client_id') ?? clientId;
      const email = requestUrl.searchParams.get('email') ?? undefined;
      const verified = requestUrl.searchParams.get('email_verified');
      const emailClaims = {
        ...(email === undefined ? {} : { email }),
        ...(verified === null ? {} : { emailVerified: verified === 'true' }),
      };
      void provider.issueIdToken(userId, { audience: forClient, ...emailClaims }).then((idToken) =>
        sendJson(res, 200, {
          user_id: userId,
          access_token: provider.issueAccessToken(userId, { clientId: forClient }),
          id_token: idToken,
          token_type: 'Bearer',
          expires_in: 3600,
        }),
      );
      return;
    }
    if (route === 'GET /.well-known/openid-configuration') {
      sendJson(res, 200, { issuer: url, jwks_uri: `${url}/jwks`, userinfo_endpoint: `${url}/userinfo` });
      return;
    }
    if (route === 'GET /jwks') {
      if (!misbehave(res)) sendJson(res, 200, { keys: [key.publicJwk] });
      return;
    }
    if (route === 'GET /userinfo' || route === 'GET /tokeninfo') {
      if (misbehave(res)) return;
      const grant = accessTokens.get(bearer(req) ?? '');
      if (!grant) {
        sendJson(res, 401, { error: 'invalid_token' });
        return;
      }
      if (failure === 'missing-id') sendJson(res, 200, { name: 'No Id' });
      else if (route === 'GET /userinfo')
        sendJson(res, 200, { id: grant.userId, name: `User ${grant.userId}` });
      else sendJson(res, 200, { id: grant.userId, app_id: grant.clientId, expires_in: 3600 });
      return;
    }
    sendJson(res, 404, { error: 'not_found' });
  };

  const server = createServer(handle);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const provider: FakeProvider = {
    url,
    clientId,
    issueAccessToken(userId, tokenOptions = {}) {
      const token = randomBytes(24).toString('base64url');
      accessTokens.set(token, { userId, clientId: tokenOptions.clientId ?? clientId });
      return token;
    },
    async issueIdToken(userId, tokenOptions = {}) {
      const signingKey =
        tokenOptions.signer === 'foreign' ? (await newSigningKey()).privateKey : key.privateKey;
      const now = Math.floor(Date.now() / 1000);
      const claims: Record<string, unknown> = { name: `User ${userId}` };
      if (tokenOptions.email !== undefined) claims.email = tokenOptions.email;
      if (tokenOptions.emailVerified !== undefined) claims.email_verified = tokenOptions.emailVerified;
      return new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: key.kid, typ: 'JWT' })
        .setIssuer(tokenOptions.issuer ?? url)
        .setAudience(tokenOptions.audience ?? clientId)
        .setSubject(userId)
        .setIssuedAt(now - 60)
        .setExpirationTime(now + (tokenOptions.expiresIn ?? 3600))
        .sign(signingKey);
    },
    async rotateKey() {
      key = await newSigningKey();
    },
    failWith(mode) {
      failure = mode;
    },
    env(name, kind) {
      const prefix = `PROVIDER_${name.toUpperCase()}_`;
      if (kind === 'id-token') {
        return {
          [`${prefix}KIND`]: 'id-token',
          [`${prefix}JWKS_URL`]: `${url}/jwks`,
          [`${prefix}ISSUER`]: url,
          [`${prefix}AUDIENCE`]: clientId,
        };
      }
      return {
        [`${prefix}KIND`]: 'userinfo',
        [`${prefix}USERINFO_URL`]: `${url}/userinfo`,
        [`${prefix}USER_ID_PATH`]: 'id',
        [`${prefix}TOKENINFO_URL`]: `${url}/tokeninfo`,
        [`${prefix}CLIENT_ID_PATH`]: 'app_id',
        [`${prefix}CLIENT_ID`]: clientId,
      };
    },
    close() {
      return new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
    },
  };
  return provider;
}
