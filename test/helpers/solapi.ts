import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';

/**
 * A fake SOLAPI for the tests: a real HTTP server on 127.0.0.1 that answers `POST /messages/v4/send` as SOLAPI
 * does, after checking the `Authorization: HMAC-SHA256 apiKey=…, date=…, salt=…, signature=…` header against
 * its own key and secret (a bad signature, an unknown key or a reused salt is SOLAPI's 401/403). It records
 * every accepted message; tests read the codes from it.
 */
export interface FakeSolapiMessage {
  to: string;
  from: string;
  text: string;
  type: string;
  country: string;
}

/** How the next answers fail: `http-500` (SOLAPI's 5xx), `hang` (never answers), or not at all. */
export type SolapiFailure = 'http-500' | 'hang' | undefined;

export interface FakeSolapi {
  readonly url: string;
  readonly apiKey: string;
  readonly apiSecret: string;
  readonly sender: string;
  /** The SOLAPI_* settings pointing the service here. */
  env(): Record<string, string>;
  /** Every message accepted, in order. */
  readonly messages: FakeSolapiMessage[];
  /** Requests refused for their authorization (each one a test failure unless meant). */
  readonly refused: string[];
  /** The 6-digit code of the last message to this national number (`01012345678`). */
  codeFor(nationalNumber: string): string;
  failWith(failure: SolapiFailure): void;
  close(): Promise<void>;
}

const HEADER = /^HMAC-SHA256 apiKey=([^,]+), date=([^,]+), salt=([^,]+), signature=([0-9a-f]{64})$/;

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startFakeSolapi(): Promise<FakeSolapi> {
  const apiKey = 'NCSTESTKEY0000001';
  const apiSecret = 'TESTSECRET0000000000000000000001';
  const sender = '0212345678';
  const messages: FakeSolapiMessage[] = [];
  const refused: string[] = [];
  const salts = new Set<string>();
  let failure: SolapiFailure;
  let counter = 0;
  const authorized = (header: string | undefined): string | undefined => {
    const match = HEADER.exec(header ?? '');
    if (!match) return 'malformed';
    const [, key, date, salt, signature] = match as unknown as [string, string, string, string, string];
    if (key !== apiKey) return 'unknown key';
    const expected = createHmac('sha256', apiSecret)
      .update(date + salt)
      .digest('hex');
    if (signature !== expected) return 'bad signature';
    if (Math.abs(Date.parse(date) - Date.now()) > 15 * 60_000) return 'date out of range';
    if (salts.has(salt)) return 'salt reused';
    salts.add(salt);
    return undefined;
  };
  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    if (failure === 'hang') return;
    if (req.method !== 'POST' || req.url !== '/messages/v4/send') {
      send(res, 404, { errorCode: 'NotFound', errorMessage: 'not found' });
      return;
    }
    const problem = authorized(req.headers.authorization);
    if (problem) {
      refused.push(problem);
      send(res, 401, { errorCode: 'InvalidAPIKey', errorMessage: problem });
      return;
    }
    if (failure === 'http-500') {
      send(res, 500, { errorCode: 'InternalError', errorMessage: 'try again' });
      return;
    }
    const { message } = JSON.parse(body) as { message: FakeSolapiMessage };
    messages.push(message);
    counter += 1;
    send(res, 200, {
      groupId: `G4V${counter}`,
      messageId: `M4V${String(counter).padStart(8, '0')}`,
      to: message.to,
      from: message.from,
      type: message.type,
      statusCode: '2000',
      statusMessage: '정상 접수(이통사로 접수 예정) ',
      country: message.country,
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    apiKey,
    apiSecret,
    sender,
    env: () => ({
      SOLAPI_API_KEY: apiKey,
      SOLAPI_API_SECRET: apiSecret,
      SOLAPI_SENDER: sender,
      SOLAPI_API_URL: url,
      SOLAPI_TIMEOUT: '2s',
    }),
    messages,
    refused,
    codeFor: (nationalNumber) => {
      const last = messages.filter((message) => message.to === nationalNumber).at(-1);
      const code = /\b(\d{6})\b/.exec(last?.text ?? '')?.[1];
      if (code === undefined) throw new Error(`no code texted to ${nationalNumber}`);
      return code;
    },
    failWith: (next) => {
      failure = next;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const isMobileNumber = (e164: string) => parsePhoneNumberFromString(e164)?.getType() === 'MOBILE';

/** A fresh Korean mobile number per call, as typed (`010-xxxx-xxxx`), and its E.164 and national forms. */
// Each call takes a new block (the SMS limits count per number less its last four digits).
let nextNumber = 20_000_000 + Math.floor(Math.random() * 40_000_000);
export function newMobile(): { typed: string; e164: string; national: string } {
  nextNumber += 10_001;
  // A few blocks of 010 are not assigned (010-5970 to 010-5999, by libphonenumber's metadata): skipped, or
  // a test would be refused a "not a valid phone number" one number in a few hundred.
  while (!isMobileNumber(`+8210${nextNumber}`)) nextNumber += 10_001;
  const digits = String(nextNumber);
  return {
    typed: `010-${digits.slice(0, 4)}-${digits.slice(4)}`,
    e164: `+8210${digits}`,
    national: `010${digits}`,
  };
}
