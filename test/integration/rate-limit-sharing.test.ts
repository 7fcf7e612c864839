import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { closeTestApp, createTestApp, type TestApp } from '../helpers/app.js';
import { expectTooManyRequests, login, newIp, post, signUp } from '../helpers/client-requests.js';
import { unique } from '../helpers/factories.js';
import { expectOk } from '../helpers/http.js';
import { expectAuthenticationFailed } from '../helpers/providers.js';
import { closedRedisUrl, deleteKeys, limitsEnv, newKeyPrefix, stores } from '../helpers/redis.js';

describe.each(stores)('rate limit windows on the %s store', (store) => {
  let ctx: TestApp;
  const keyPrefix = newKeyPrefix();

  beforeAll(async () => {
    ctx = await createTestApp(
      'pglite',
      limitsEnv(store, { RATE_LIMIT_VALIDATE_IP: '2/1s', RATE_LIMIT_LOGIN_FAILURES: '1/1s' }, keyPrefix),
    );
  });
  afterAll(async () => {
    if (ctx) await closeTestApp(ctx);
    await deleteKeys(keyPrefix);
  });

  it('lets an IP in again once its window has passed', async () => {
    const account = await signUp(ctx.app);
    const ip = newIp();
    const email = `free${unique()}@example.com`;
    for (let i = 0; i < 2; i++) expectOk(await post(ctx.app, '/v1/validate/email', { email }, ip));
    expectAuthenticationFailed(await login(ctx.app, account.email, 'Wrong-Guess-1234', ip));
    expectTooManyRequests(await post(ctx.app, '/v1/validate/email', { email }, ip), 1);
    expectTooManyRequests(await login(ctx.app, account.email, account.password, ip), 1);
    await sleep(1100);
    expectOk(await post(ctx.app, '/v1/validate/email', { email }, ip));
    expectOk(await login(ctx.app, account.email, account.password, ip));
  });
});

describe.runIf(stores.includes('redis'))('two instances sharing one Redis', () => {
  let first: TestApp;
  let second: TestApp;
  const keyPrefix = newKeyPrefix();

  beforeAll(async () => {
    const env = limitsEnv(
      'redis',
      { RATE_LIMIT_VALIDATE_IP: '4/1m', RATE_LIMIT_LOGIN_FAILURES: '2/15m' },
      keyPrefix,
    );
    first = await createTestApp('pglite', env);
    second = await createTestApp('pglite', env);
  });
  afterAll(async () => {
    if (first) await closeTestApp(first);
    if (second) await closeTestApp(second);
    await deleteKeys(keyPrefix);
  });

  it('share per-IP counters: hits on either instance count toward one limit', async () => {
    const ip = newIp();
    for (const app of [first.app, second.app, first.app, second.app]) {
      expectOk(await post(app, '/v1/validate/username', { username: `free${unique()}` }, ip));
    }
    expectTooManyRequests(await post(first.app, '/v1/validate/username', { username: 'someone' }, ip), 60);
    expectTooManyRequests(await post(second.app, '/v1/validate/username', { username: 'someone' }, ip), 60);
  });

  it('share login failures: a guess on one instance counts on the other', async () => {
    // Two databases, one account email on both: the counter is keyed by email and IP, not by database row.
    const account = await signUp(first.app);
    const id = unique();
    expectOk(
      await post(
        second.app,
        '/v1/auth/register',
        { type: 'email', username: `limit${id}`, gender: '1', user_agreement: 'on', ...account },
        newIp(),
      ),
    );
    const ip = newIp();
    expectAuthenticationFailed(await login(first.app, account.email, 'Wrong-Guess-1234', ip));
    expectAuthenticationFailed(await login(second.app, account.email, 'Wrong-Guess-1234', ip));
    expectTooManyRequests(await login(first.app, account.email, account.password, ip), 900);
    expectTooManyRequests(await login(second.app, account.email, account.password, ip), 900);
  });
});

describe('Redis unreachable', () => {
  let ctx: TestApp;

  beforeAll(async () => {
    ctx = await createTestApp('pglite', {
      ...limitsEnv('memory', { RATE_LIMIT_VALIDATE_IP: '3/1m' }),
      REDIS_URL: await closedRedisUrl(),
    });
  });
  afterAll(async () => {
    if (ctx) await closeTestApp(ctx);
  });

  it('answers every request, and still limits them in this process', async () => {
    const ip = newIp();
    for (let i = 0; i < 3; i++) {
      expectOk(await post(ctx.app, '/v1/validate/username', { username: `free${unique()}` }, ip));
    }
    expectTooManyRequests(await post(ctx.app, '/v1/validate/username', { username: 'someone' }, ip), 60);
    const account = await signUp(ctx.app);
    expectOk(await login(ctx.app, account.email, account.password, newIp()));
    expectAuthenticationFailed(await login(ctx.app, account.email, 'Wrong-Guess-1234', newIp()));
  });
});
