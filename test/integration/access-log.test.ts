import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeTestApp, createTestApp, type TestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { expectError, UNAUTHENTICATED } from '../helpers/http.js';
import { logSink } from '../helpers/logs.js';

/** One access line per request (not Fastify's two), with the fields an operator reads and no secret. */
describe.each(backends)('%s: the access log', (backend) => {
  let ctx: TestApp;
  let lines: string[];

  beforeAll(async () => {
    const sink = logSink();
    lines = sink.lines;
    ctx = await createTestApp(backend, { LOG_LEVEL: 'info' }, { logStream: sink.stream });
  });
  afterAll(async () => {
    if (ctx) await closeTestApp(ctx);
  });

  it('writes one line per request: method, redacted url, status and time, never the token', async () => {
    lines.length = 0;
    const response = await ctx.app.inject({
      method: 'GET',
      url: '/v1/user/get?api_token=query-secret',
      headers: { authorization: 'Bearer header-secret', 'user-agent': 'app/1.0' },
    });
    expectError(response, 401, ...UNAUTHENTICATED);
    const entries = lines.map((line) => JSON.parse(line));
    const access = entries.filter((entry) => entry.req !== undefined);
    expect(access).toHaveLength(1);
    expect(entries.map((entry) => entry.msg)).not.toContain('incoming request');
    expect(access[0]).toMatchObject({
      msg: 'request completed',
      req: { method: 'GET', url: '/v1/user/get?api_token', userAgent: 'app/1.0' },
      res: { statusCode: 401 },
      reqId: response.headers['x-request-id'],
    });
    expect(typeof access[0].responseTime).toBe('number');
    expect(lines.join('')).not.toMatch(/query-secret|header-secret/);
  });

  it.each([
    ['/v1/user/get;api_token=matrix-secret', 404, '/v1/user/get;[redacted]'],
    ['/v1/user/get?api_token%00=nul-secret', 401, '/v1/user/get?api_token%00'],
  ])('never logs a secret in a URL form the router does not match: %s', async (url, status, logged) => {
    lines.length = 0;
    const response = await ctx.app.inject({ method: 'GET', url });
    expect(response.statusCode).toBe(status);
    const access = lines.map((line) => JSON.parse(line)).filter((entry) => entry.req !== undefined);
    expect(access).toHaveLength(1);
    expect(access[0].req.url).toBe(logged);
    expect(lines.join('')).not.toMatch(/matrix-secret|nul-secret/);
  });
});
