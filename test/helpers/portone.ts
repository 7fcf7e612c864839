import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake PortOne V2 for the tests: a real HTTP server on 127.0.0.1 that answers
 * `GET /identity-verifications/{id}?storeId=…` with `Authorization: PortOne <secret>` the way PortOne does
 * (the shapes of @portone/server-sdk's typings). Tests script what each id answers; the service talks HTTP to
 * it through the SDK, as it talks to PortOne.
 */

/** The person a verification names (PortOne's `verifiedCustomer`). */
export interface FakePerson {
  name: string;
  /** `YYYY-MM-DD`. */
  birthDate: string;
  gender: 'MALE' | 'FEMALE';
  isForeigner: boolean;
  /** The CI: the same for one person at every service. */
  ci: string;
  phoneNumber: string;
}

/** How a scripted verification answers. */
export interface ScriptedVerification {
  status: 'VERIFIED' | 'FAILED' | 'READY';
  person: FakePerson;
  /** When PortOne verified it (VERIFIED only); now by default. */
  verifiedAt: Date;
  /** The store it belongs to: another store's verification is unknown to ours. */
  storeId: string;
}

/** How the whole server misbehaves: `hang` never answers, `http-500` answers PortOne's 5xx. */
export type PortOneFailure = 'hang' | 'http-500' | undefined;

export interface FakePortOne {
  readonly url: string;
  readonly secret: string;
  readonly storeId: string;
  readonly channelKey: string;
  /** The PORTONE_* settings that point the service at this server (and its timeout, if given). */
  env(timeoutMs?: number): Record<string, string>;
  /** Everyone `person` made (a suite checks that none of their CIs or phone numbers leaked). */
  readonly people: FakePerson[];
  /** A new person with a fresh CI; `overrides` for a minor, a foreigner, a two-syllable name. */
  person(overrides?: Partial<FakePerson>): FakePerson;
  /** Scripts the answer for `id` (what PortOne's SDK in the app would have produced). */
  script(
    id: string,
    status: ScriptedVerification['status'],
    person: FakePerson,
    options?: Partial<ScriptedVerification>,
  ): void;
  failWith(failure: PortOneFailure): void;
  /** The requests it received: path with query, the Authorization header, and the W3C traceparent. */
  readonly requests: { path: string; authorization: string | undefined; traceparent?: string | undefined }[];
  close(): Promise<void>;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function verificationBody(id: string, scripted: ScriptedVerification): Record<string, unknown> {
  const now = new Date().toISOString();
  const { person } = scripted;
  const common = {
    id,
    channel: {
      type: 'LIVE',
      id: 'channel-id',
      key: 'channel-key',
      name: 'PASS',
      pgProvider: 'DANAL',
      pgMerchantId: 'A010002002',
    },
    requestedAt: now,
    updatedAt: now,
    statusChangedAt: now,
    version: 'V2',
  };
  if (scripted.status === 'VERIFIED') {
    return {
      ...common,
      status: 'VERIFIED',
      verifiedCustomer: {
        id: 'customer-1',
        name: person.name,
        operator: 'SKT',
        phoneNumber: person.phoneNumber,
        birthDate: person.birthDate,
        gender: person.gender,
        isForeigner: person.isForeigner,
        ci: person.ci,
        di: `di-${person.ci}`,
      },
      verifiedAt: scripted.verifiedAt.toISOString(),
      pgTxId: 'pg-tx-1',
      pgRawResponse: '{}',
    };
  }
  const requestedCustomer = { id: 'customer-1' };
  if (scripted.status === 'FAILED') {
    return {
      ...common,
      status: 'FAILED',
      requestedCustomer,
      failure: { reason: 'cancelled by the user', pgCode: 'CANCEL' },
    };
  }
  return { ...common, status: 'READY', requestedCustomer };
}

export async function startFakePortOne(): Promise<FakePortOne> {
  const secret = `portone-secret-${randomBytes(8).toString('hex')}`;
  const storeId = `store-${randomBytes(8).toString('hex')}`;
  const channelKey = `channel-key-${randomBytes(8).toString('hex')}`;
  const scripted = new Map<string, ScriptedVerification>();
  const requests: FakePortOne['requests'] = [];
  let failure: PortOneFailure;

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    requests.push({
      path: req.url ?? '',
      authorization: req.headers.authorization,
      traceparent: req.headers.traceparent as string | undefined,
    });
    if (failure === 'hang') return; // answered never; the connection goes when the server closes
    if (failure === 'http-500') return sendJson(res, 500, { type: 'INTERNAL_SERVER_ERROR', message: 'boom' });
    if (req.headers.authorization !== `PortOne ${secret}`) {
      return sendJson(res, 401, { type: 'UNAUTHORIZED', message: 'invalid secret' });
    }
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const match = /^\/identity-verifications\/([^/]+)$/.exec(url.pathname);
    if (req.method !== 'GET' || !match) return sendJson(res, 404, { type: 'NOT_FOUND' });
    const id = decodeURIComponent(match[1] as string);
    const found = scripted.get(id);
    // Another store's verification does not exist as far as our store is concerned.
    if (!found || found.storeId !== url.searchParams.get('storeId')) {
      return sendJson(res, 404, { type: 'IDENTITY_VERIFICATION_NOT_FOUND', message: 'not found' });
    }
    return sendJson(res, 200, verificationBody(id, found));
  };

  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const people: FakePerson[] = [];
  return {
    url,
    secret,
    storeId,
    channelKey,
    requests,
    env: (timeoutMs) => ({
      PORTONE_API_SECRET: secret,
      PORTONE_STORE_ID: storeId,
      PORTONE_CHANNEL_KEY: channelKey,
      PORTONE_API_URL: url,
      ...(timeoutMs === undefined ? {} : { PORTONE_TIMEOUT_MS: String(timeoutMs) }),
    }),
    people,
    person: (overrides = {}) => {
      const made: FakePerson = {
        name: '김민지',
        birthDate: '1998-04-17',
        gender: 'FEMALE',
        isForeigner: false,
        // 88 characters of base64, as a real CI is.
        ci: `${randomBytes(66).toString('base64')}`,
        phoneNumber: `0101234${String(people.length + 1).padStart(4, '0')}`,
        ...overrides,
      };
      people.push(made);
      return made;
    },
    script: (id, status, person, options = {}) => {
      scripted.set(id, { status, person, verifiedAt: new Date(), storeId, ...options });
    },
    failWith: (mode) => {
      failure = mode;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
