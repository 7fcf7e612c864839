import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeProvider, startFakeProvider } from '../../src/dev/fake-provider.js';
import { closeTestApp, createTestApp, type TestApp } from '../helpers/app.js';
import { expectTooManyRequests, post } from '../helpers/client-requests.js';
import { backends } from '../helpers/database.js';
import { bearer, registerUser, unique } from '../helpers/factories.js';
import { expectError, expectOk, postForm } from '../helpers/http.js';
import { type Sample, scrape, total } from '../helpers/metrics.js';
import { expectAuthenticationFailed, expectNotRegistered, providerLogin } from '../helpers/providers.js';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
/** Anything token-like: long runs of base64url / hex, as API tokens and provider tokens are. */
const TOKEN = /[A-Za-z0-9_-]{24,}/;

const requests = (samples: Sample[], method: string, route: string, status: string) =>
  total(samples, 'http_requests_total', { method, route, status });

describe.each(backends)('%s: GET /metrics', (backend) => {
  let fake: FakeProvider;
  let ctx: TestApp;
  const secrets: string[] = [];

  beforeAll(async () => {
    fake = await startFakeProvider({ clientId: 'accounts-test' });
    ctx = await createTestApp(backend, {
      ...fake.env('alpha', 'userinfo'),
      RATE_LIMIT_ENABLED: 'true',
      RATE_LIMIT_VALIDATE_IP: '3/1m',
    });
  });
  afterAll(async () => {
    if (ctx) await closeTestApp(ctx);
    if (fake) await fake.close();
  });

  it('counts a known sequence of requests by route template and status, and argon2, limits and providers', async () => {
    const before = await scrape(ctx.app);
    const ip = `203.0.113.${Math.floor(Math.random() * 250) + 1}`;
    for (let i = 0; i < 3; i++) {
      const email = `free${unique()}@example.com`;
      expect(expectOk(await post(ctx.app, '/v1/validate/email', { email }, ip))).toEqual({
        email,
        status: 'valid',
      });
    }
    // The fourth within the minute is over RATE_LIMIT_VALIDATE_IP.
    expectTooManyRequests(await post(ctx.app, '/v1/validate/email', { email: 'x@example.com' }, ip), 60);
    const user = await registerUser(ctx.app);
    secrets.push(user.token, user.email, user.id);
    const failed = await postForm(ctx.app, '/v1/auth/login/email', {
      email: user.email,
      password: 'wrong password 1',
    });
    expectAuthenticationFailed(failed);
    const ghostToken = randomUUID();
    const revoke = await ctx.app.inject({
      method: 'POST',
      url: `/v1/user/tokens/${ghostToken}/revoke`,
      headers: bearer(user.token),
    });
    expectError(revoke, 404, 'NotFoundHttpException', 'Not Found');
    const unknown = await ctx.app.inject({
      method: 'GET',
      url: `/v1/nowhere/${user.id}?api_token=${user.token}`,
    });
    expectError(unknown, 404, 'NotFoundHttpException', 'Not Found');
    const alphaId = `alpha-${unique()}`;
    const genuine = fake.issueAccessToken(alphaId);
    secrets.push(genuine, ghostToken);
    // A genuine token of an identity with no account: verified, then 401 not_registered.
    expectNotRegistered(await providerLogin(ctx.app, 'alpha', alphaId, genuine));
    expectAuthenticationFailed(await providerLogin(ctx.app, 'alpha', alphaId, 'forged-token'));

    const after = await scrape(ctx.app);
    const delta = (name: string, labels: Record<string, string>) =>
      total(after, name, labels) - total(before, name, labels);
    expect(delta('http_requests_total', { route: '/v1/validate/email', status: '200' })).toBe(3);
    expect(delta('http_requests_total', { route: '/v1/validate/email', status: '429' })).toBe(1);
    expect(requests(after, 'POST', '/v1/auth/register', '200')).toBe(1);
    expect(requests(after, 'POST', '/v1/auth/login/email', '401')).toBe(1);
    expect(requests(after, 'POST', '/v1/user/tokens/:id/revoke', '404')).toBe(1);
    expect(requests(after, 'GET', 'unmatched', '404')).toBe(1);
    expect(requests(after, 'POST', '/v1/auth/login/alpha', '401')).toBe(2);
    // The first scrape itself was answered before the second one ran.
    expect(requests(after, 'GET', '/metrics', '200')).toBeGreaterThanOrEqual(1);
    expect(delta('http_request_duration_seconds_count', { route: '/v1/validate/email' })).toBe(4);

    // One hash at sign-up, one verify for the failed login (the equaliser may add more, never fewer).
    expect(delta('argon2_duration_seconds_count', { operation: 'hash' })).toBeGreaterThanOrEqual(1);
    expect(delta('argon2_duration_seconds_count', { operation: 'verify' })).toBeGreaterThanOrEqual(1);
    expect(total(after, 'argon2_in_flight')).toBe(0);
    expect(delta('rate_limit_rejections_total', { limit: 'validate-ip' })).toBe(1);
    expect(delta('provider_verifications_total', { provider: 'alpha', outcome: 'ok' })).toBe(1);
    expect(delta('provider_verifications_total', { provider: 'alpha', outcome: 'rejected' })).toBe(1);
    expect(delta('provider_verification_duration_seconds_count', { provider: 'alpha' })).toBe(2);

    for (const name of ['db_pool_connections_total', 'db_pool_connections_in_use', 'db_pool_waiting']) {
      expect(after.some((sample) => sample.name === name)).toBe(true);
    }
    expect(total(after, 'db_pool_connections_total')).toBeGreaterThanOrEqual(1);
    expect(after.some((sample) => sample.name === 'process_cpu_seconds_total')).toBe(true);
    expect(after.some((sample) => sample.name === 'nodejs_eventloop_lag_seconds')).toBe(true);
  });

  it('never puts an id, a token, an email or a query string in a label value', async () => {
    const samples = await scrape(ctx.app);
    const labels = samples.flatMap((sample) => Object.entries(sample.labels));
    expect(labels.length).toBeGreaterThan(50);
    for (const [name, value] of labels) {
      expect(value).not.toMatch(UUID);
      // V8's heap space names are long but fixed lower-case words (Node 26: shared_trusted_large_object).
      if (name === 'space') expect(value).toMatch(/^[a-z]+(_[a-z]+)*$/);
      else expect(value).not.toMatch(TOKEN);
      expect(value).not.toMatch(/[@?&=]/);
      for (const secret of secrets) expect(value).not.toContain(secret);
    }
    const routes = new Set(
      samples.map((sample) => sample.labels.route).filter((route) => route !== undefined),
    );
    for (const route of routes) expect(route === 'unmatched' || route.startsWith('/')).toBe(true);
  });

  it('asks for the bearer token when METRICS_TOKEN is set', async () => {
    const token = 'scrape-secret-0123456789';
    const guarded = await createTestApp(backend, { METRICS_TOKEN: token });
    try {
      const missing = await guarded.app.inject({ method: 'GET', url: '/metrics' });
      expectError(missing, 401, 'UnauthorizedHttpException', 'Unauthorized');
      expect(missing.headers['www-authenticate']).toBe('Bearer');
      const wrong = await guarded.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: bearer(`${token}x`),
      });
      expectError(wrong, 401, 'UnauthorizedHttpException', 'Unauthorized');
      expect(total(await scrape(guarded.app, bearer(token)), 'http_requests_total', { status: '401' })).toBe(
        2,
      );
    } finally {
      await closeTestApp(guarded);
    }
  });

  it('is not on the main port when METRICS_PORT is set (a 404 envelope there)', async () => {
    const separate = await createTestApp(backend, { METRICS_PORT: '0' });
    try {
      const res = await separate.app.inject({ method: 'GET', url: '/metrics' });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({
        meta: { code: 404, error_type: 'NotFoundHttpException', error_message: 'Not Found' },
        data: [],
      });
    } finally {
      await closeTestApp(separate);
    }
  });

  it('counts each app on its own registry', async () => {
    const other = await createTestApp(backend);
    try {
      expect(total(await scrape(other.app), 'http_requests_total', { route: '/v1/validate/email' })).toBe(0);
    } finally {
      await closeTestApp(other);
    }
  });
});
