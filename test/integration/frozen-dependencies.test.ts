import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { type DatabaseHandle, openDatabase } from '../../src/db/client.js';
import { closeTestApp, createTestApp, type TestApp, testConfig } from '../helpers/app.js';
import { backends, createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { bearer, registerUser } from '../helpers/factories.js';
import { type FreezingProxy, startFreezingProxy } from '../helpers/freezing-proxy.js';
import { expectError, expectOk, postForm } from '../helpers/http.js';
import { pngFixture } from '../helpers/images.js';
import { updatePicture } from '../helpers/media.js';
import { limitsEnv } from '../helpers/redis.js';
import { type FakeS3, startFakeS3 } from '../helpers/s3.js';

const UNAVAILABLE = [503, 'ServiceUnavailableHttpException', 'Service Unavailable', []] as const;

/**
 * Each dependency is reached through a proxy that can freeze (forward nothing, keep connections open), as a
 * SIGSTOPped server would. Nothing here asserts a duration: a request that hung on the frozen dependency
 * would never answer, and the test would fail on its own timeout.
 */
describe.each(backends.filter((backend) => backend === 'postgres'))('%s: a frozen PostgreSQL', (backend) => {
  let database: TestDatabase;
  let proxy: FreezingProxy;
  let viaProxy: DatabaseHandle;
  let app: FastifyInstance;

  beforeAll(async () => {
    database = await createTestDatabase(backend);
    const url = new URL(database.url as string);
    proxy = await startFreezingProxy(Number(url.port || 5432), url.hostname);
    url.port = String(proxy.port);
    viaProxy = await openDatabase({
      url: url.toString(),
      embeddedDir: '',
      poolMax: 2,
      timeouts: { acquireTimeoutMs: 500, statementTimeoutMs: 500 },
    });
    app = await buildApp(testConfig(), { database: viaProxy });
    await app.ready();
  });

  afterAll(async () => {
    proxy?.thaw();
    await app?.close();
    await viaProxy?.close();
    await proxy?.close();
    await database?.drop();
  });

  it('answers 503 within the bound on pooled and on new connections, and recovers when thawed', async () => {
    const user = await registerUser(app);
    expectOk(await app.inject({ method: 'GET', url: '/v1/user/get', headers: bearer(user.token) }));
    proxy.freeze();
    // Two at once: one on each pooled connection, then a third that waits for a connection.
    const frozen = await Promise.all(
      Array.from({ length: 3 }, () =>
        app.inject({ method: 'GET', url: '/v1/user/get', headers: bearer(user.token) }),
      ),
    );
    for (const res of frozen) expectError(res, ...UNAVAILABLE);
    expect(proxy.attemptsWhileFrozen()).toBeGreaterThan(0);
    proxy.thaw();
    let recovered = 0;
    for (let i = 0; i < 10 && recovered < 2; i++) {
      const res = await app.inject({ method: 'GET', url: '/v1/user/get', headers: bearer(user.token) });
      expect([200, 503]).toContain(res.statusCode);
      if (res.statusCode === 200) recovered++;
    }
    expect(recovered).toBe(2);
  });
});

describe.each(backends)('%s: a frozen Redis', (backend) => {
  let proxy: FreezingProxy;
  let ctx: TestApp;
  const redisUrl = process.env.REDIS_URL;

  beforeAll(async () => {
    if (!redisUrl) return;
    const target = new URL(redisUrl);
    proxy = await startFreezingProxy(Number(target.port || 6379), target.hostname);
    target.host = `127.0.0.1:${proxy.port}`;
    ctx = await createTestApp(backend, {
      ...limitsEnv('redis', {}),
      REDIS_URL: target.toString(),
      // Generous, so that a busy machine does not time out a healthy Redis before the freeze: what is
      // asserted is how many commands reach the frozen Redis, not how long they take.
      REDIS_COMMAND_TIMEOUT_MS: '1000',
    });
  });

  afterAll(async () => {
    proxy?.thaw();
    if (ctx) await closeTestApp(ctx);
    await proxy?.close();
  });

  it.runIf(redisUrl !== undefined)(
    'lets logins through, asking the frozen Redis once, not once per check',
    async () => {
      const user = await registerUser(ctx.app);
      const login = () =>
        postForm(ctx.app, '/v1/auth/login/email', { email: user.email, password: user.password });
      expectOk(await login());
      proxy.freeze();
      for (let i = 0; i < 10; i++) expectOk(await login());
      // Ten logins make about thirty limit checks; the breaker lets one reach the frozen Redis.
      expect(proxy.attemptsWhileFrozen()).toBeGreaterThanOrEqual(1);
      expect(proxy.attemptsWhileFrozen()).toBeLessThanOrEqual(2);
    },
  );
});

describe.each(backends)('%s: a stalled S3 store', (backend) => {
  let s3: FakeS3;
  let proxy: FreezingProxy;
  let ctx: TestApp;

  beforeAll(async () => {
    s3 = await startFakeS3();
    proxy = await startFreezingProxy(Number(new URL(s3.endpoint).port));
    ctx = await createTestApp(backend, {
      ...s3.env,
      S3_ENDPOINT: `http://127.0.0.1:${proxy.port}`,
      S3_TIMEOUT_MS: '300',
    });
  });

  afterAll(async () => {
    proxy?.thaw();
    if (ctx) await closeTestApp(ctx);
    await proxy?.close();
    await s3?.close();
  });

  it('fails an upload with a 503 within the bound, and stores again once it answers', async () => {
    const user = await registerUser(ctx.app);
    proxy.freeze();
    expectError(await updatePicture(ctx.app, user.token, await pngFixture(40, 40)), ...UNAVAILABLE);
    expect(proxy.attemptsWhileFrozen()).toBeGreaterThan(0);
    proxy.thaw();
    expectOk(await updatePicture(ctx.app, user.token, await pngFixture(40, 40)));
  });
});
