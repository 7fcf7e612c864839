import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningService, startService } from '../helpers/process.js';
import { openSocketCount, parseRawResponse, peakRss, rawExchange, streamUpload } from '../helpers/sockets.js';

const CHEAP_ARGON2 = { ARGON2_MEMORY_KIB: '1024', ARGON2_TIME_COST: '1' };
const TIMEOUT = {
  meta: { code: 408, error_type: 'RequestTimeoutHttpException', error_message: 'Request Timeout' },
  data: [],
};
const MiB = 1024 ** 2;

/** The JSON log lines of one request. */
function logLines(output: string, requestId: string): { level: number; msg: string }[] {
  return output
    .split('\n')
    .filter((line) => line.includes(requestId))
    .map((line) => JSON.parse(line) as { level: number; msg: string });
}

/** Waits (bounded) until the condition holds. */
async function until(condition: () => boolean, limitMs = 10_000): Promise<void> {
  for (let waited = 0; !condition(); waited += 50) {
    if (waited > limitMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A request's head, as a hostile client would send it, without its body. */
function head(lines: string[]): string {
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** Headers announcing a 1000-byte body (of a route without a per-IP limit low enough to get in the way). */
const STALLED_VALIDATE = head([
  'POST /v1/validate/email HTTP/1.1',
  'Host: 127.0.0.1',
  'Content-Type: application/x-www-form-urlencoded',
  'Content-Length: 1000',
]);

/** The same on the admin API (sign-out: no per-IP limit counted before its body). */
const STALLED_ADMIN = head([
  'POST /admin/v1/auth/logout HTTP/1.1',
  'Host: 127.0.0.1',
  'Content-Type: application/json',
  'Cookie: accounts_staff=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
  'Content-Length: 1000',
]);

const STALLED_LOGIN = head([
  'POST /v1/auth/login/email HTTP/1.1',
  'Host: 127.0.0.1',
  'Content-Type: application/x-www-form-urlencoded',
  'Content-Length: 1000',
]);

/**
 * The attack of the issue: a chunked multipart register with 5 × 10 MB files and 99 × 1 MB fields (about
 * 150 MB), generated as it is sent, never held in the test's memory.
 */
function hostileMultipart(boundary: string): Readable {
  const block = Buffer.alloc(64 * 1024, 'a');
  async function* parts() {
    for (let file = 0; file < 5; file++) {
      yield Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="image${file}"; filename="x${file}.png"\r\n` +
          'Content-Type: image/png\r\n\r\n',
      );
      for (let sent = 0; sent < 10 * MiB; sent += block.length) yield block;
      yield Buffer.from('\r\n');
    }
    for (let field = 0; field < 99; field++) {
      yield Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="field${field}"\r\n\r\n`);
      for (let sent = 0; sent < MiB; sent += block.length) yield block;
      yield Buffer.from('\r\n');
    }
    yield Buffer.from(`--${boundary}--\r\n`);
  }
  return Readable.from(parts(), { objectMode: false });
}

describe('slow and hostile clients against the real process', () => {
  let service: RunningService;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'accounts-hostile-'));
    service = await startService({
      ...CHEAP_ARGON2,
      DATA_DIR: dataDir,
      REQUEST_TIMEOUT_MS: '3000',
      HEADERS_TIMEOUT_MS: '1000',
      BODY_LIMIT: '1mb',
      FILE_SIZE_LIMIT: '2mb',
      RATE_LIMIT_ENABLED: 'true',
      RATE_LIMIT_LOGIN_IP: '1/1h',
      LOG_LEVEL: 'debug',
    });
    // One ordinary request first, so the handles a first request opens lazily are counted as the baseline.
    expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
  });

  afterAll(async () => {
    await service?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('closes slowloris connections (headers one byte at a time) with a 408 and returns their handles', async () => {
    const pid = service.child.pid as number;
    const before = await openSocketCount(pid);
    const slowHead = head(['GET /healthz HTTP/1.1', 'Host: 127.0.0.1', `X-Padding: ${'a'.repeat(200)}`]);
    const exchanges = await Promise.all(
      Array.from({ length: 20 }, () => rawExchange(service.url, slowHead, { trickleMs: 100 })),
    );
    for (const exchange of exchanges) {
      expect(exchange.closedByServer).toBe(true);
      const { status, body, headers } = parseRawResponse(exchange.response);
      expect(status).toBe(408);
      expect(body).toEqual(TIMEOUT);
      expect(headers).toContain('connection: close');
    }
    // The server lets go of a handle just after the client sees the close: wait (bounded) for it.
    await expect.poll(() => openSocketCount(pid)).toBeLessThanOrEqual(before);
  });

  it('closes a connection whose body stalls (Content-Length 1000, 10 bytes sent) with a 408', async () => {
    const pid = service.child.pid as number;
    const before = await openSocketCount(pid);
    const exchanges = await Promise.all([
      ...Array.from({ length: 10 }, () => rawExchange(service.url, `${STALLED_VALIDATE}email=a%40b`)),
      ...Array.from({ length: 2 }, () => rawExchange(service.url, `${STALLED_ADMIN}{"a":1`)),
    ]);
    for (const exchange of exchanges) {
      expect(exchange.closedByServer).toBe(true);
      expect(parseRawResponse(exchange.response)).toMatchObject({ status: 408, body: TIMEOUT });
    }
    // The server lets go of a handle just after the client sees the close: wait (bounded) for it.
    await expect.poll(() => openSocketCount(pid)).toBeLessThanOrEqual(before);
  });

  it('refuses a chunked 150 MB multipart early with a 413, its memory bounded', async () => {
    const pid = service.child.pid as number;
    const peakBefore = await peakRss(pid);
    const boundary = 'hostile-boundary-7d1f';
    const upload = await streamUpload(
      `${service.url}/v1/auth/register`,
      `multipart/form-data; boundary=${boundary}`,
      hostileMultipart(boundary),
    );
    expect(upload.status).toBe(413);
    expect(JSON.parse(upload.body)).toEqual({
      meta: { code: 413, error_type: 'PayloadTooLargeHttpException', error_message: 'Payload Too Large' },
      data: [],
    });
    // The ceiling is BODY_LIMIT + 5 × FILE_SIZE_LIMIT (11 MB here): the answer came long before the end.
    expect(upload.bytesSent).toBeLessThan(50 * MiB);
    expect((await peakRss(pid)) - peakBefore).toBeLessThan(100 * MiB);
  });

  it('answers a request without Host (HTTP/1.1) with the 400 envelope', async () => {
    const exchange = await rawExchange(service.url, head(['GET /healthz HTTP/1.1']), { giveUpMs: 5000 });
    expect(exchange.closedByServer).toBe(true);
    expect(parseRawResponse(exchange.response)).toMatchObject({
      status: 400,
      body: {
        meta: { code: 400, error_type: 'BadRequestHttpException', error_message: 'Bad Request' },
        data: { host: ['The Host header is required.'] },
      },
    });
  });

  it('logs a client that resets its connection mid-body at debug, never as an error or an outage', async () => {
    const socket = connect(Number(new URL(service.url).port), '127.0.0.1');
    await once(socket, 'connect');
    const requestId = 'reset-by-client-1';
    socket.write(
      `${head([
        'POST /v1/validate/email HTTP/1.1',
        'Host: 127.0.0.1',
        `X-Request-Id: ${requestId}`,
        'Content-Type: application/x-www-form-urlencoded',
        'Content-Length: 1000',
      ])}email=a`,
    );
    // The request is in when the server has logged it (at debug); then the client resets (RST, not FIN).
    await until(() => service.output().includes(requestId));
    socket.resetAndDestroy();
    await until(() =>
      logLines(service.output(), requestId).some((line) => line.msg === 'client disconnected'),
    );
    const lines = logLines(service.output(), requestId);
    expect(lines.find((line) => line.msg === 'client disconnected')?.level).toBe(20);
    expect(lines.filter((line) => line.level >= 40)).toEqual([]);
  });

  it('counts the per-IP login limit before reading the body', async () => {
    const first = await fetch(`${service.url}/v1/auth/login/email`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'email=a%40b.co&password=wrong-password',
    });
    expect(first.status).not.toBe(429);
    // Headers only: the 429 comes without a byte of the announced body.
    const second = await rawExchange(service.url, STALLED_LOGIN, { giveUpMs: 2000 });
    const { status, body, headers } = parseRawResponse(second.response);
    expect(status).toBe(429);
    const retryAfter = Number(/^retry-after: (\d+)$/m.exec(headers)?.[1]);
    expect(retryAfter).toBeGreaterThan(0);
    expect(headers).toMatch(/^content-type: application\/json; charset=utf-8$/m);
    expect(body).toEqual({
      meta: { code: 429, error_type: 'TooManyRequestsHttpException', error_message: 'Too Many Attempts.' },
      data: { retry_after: retryAfter },
    });
  });
});

describe('shutdown with a slow client connected', () => {
  let service: RunningService;
  let dataDir: string;

  // Started in the hook: a start on a busy machine must not eat into the test's own time.
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'accounts-hostile-'));
    service = await startService({
      ...CHEAP_ARGON2,
      DATA_DIR: dataDir,
      // The client's own timeouts are long: only the shutdown bound can end its connection in time.
      REQUEST_TIMEOUT_MS: '120000',
      HEADERS_TIMEOUT_MS: '120000',
      SHUTDOWN_TIMEOUT_MS: '1000',
      // A request that never completes is seen by its "incoming request" line, logged at debug.
      LOG_LEVEL: 'debug',
    });
  });

  afterAll(async () => {
    await service?.stop('SIGKILL');
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('exits 0 once the shutdown bound has passed, whatever the slow client does', async () => {
    const slow = rawExchange(service.url, `${STALLED_VALIDATE}email=a`, { giveUpMs: 60_000 });
    // The request is in (its handler waits for the body) before the signal.
    await until(() => service.output().includes('/v1/validate/email'));
    expect(await service.stop('SIGTERM')).toBe(0);
    expect((await slow).closedByServer).toBe(true);
  });
});
