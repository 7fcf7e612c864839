import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeProvider, startFakeProvider } from '../../src/dev/fake-provider.js';
import { closeTestApp, createTestApp, type TestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { unique } from '../helpers/factories.js';
import { expectError, expectOk, expectValidationError } from '../helpers/http.js';
import { expectAuthenticationFailed, expectNotRegistered } from '../helpers/providers.js';
import { closedRedisUrl, deleteKeys, limitsEnv, newKeyPrefix, type Store, stores } from '../helpers/redis.js';

let lastIp = 0;
/** A fresh client address per use, so tests sharing an app never share a per-IP counter. */
function newIp(): string {
  lastIp += 1;
  return `10.${(lastIp >> 16) & 255}.${(lastIp >> 8) & 255}.${lastIp & 255}`;
}

function post(app: FastifyInstance, url: string, body: Record<string, string>, ip: string) {
  return app.inject({
    method: 'POST',
    url,
    remoteAddress: ip,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(body).toString(),
  });
}

/** Asserts the whole 429 envelope, and that the header and the body name the same wait, within the window. */
function expectTooManyRequests(res: LightMyRequestResponse, windowSeconds: number): void {
  expect(res.statusCode, res.body).toBe(429);
  const retryAfter = res.json().data.retry_after;
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(windowSeconds);
  expectError(res, 429, 'TooManyRequestsHttpException', 'Too Many Attempts.', { retry_after: retryAfter });
  expect(res.headers['retry-after']).toBe(String(retryAfter));
}

interface Account {
  email: string;
  password: string;
  token: string;
}

async function signUp(app: FastifyInstance): Promise<Account> {
  const id = unique();
  const account = { email: `limit${id}@example.com`, password: `Sturdy-Passphrase-${id}` };
  const res = await post(
    app,
    '/v1/auth/register',
    { type: 'email', username: `limit${id}`, gender: '1', user_agreement: 'on', ...account },
    newIp(),
  );
  const { user } = expectOk<{ user: { api_token: string } }>(res);
  return { ...account, token: user.api_token };
}

function login(app: FastifyInstance, email: string, password: string, ip: string) {
  return post(app, '/v1/auth/login/email', { email, password }, ip);
}

const LIMITS = {
  RATE_LIMIT_LOGIN_FAILURES: '3/15m',
  RATE_LIMIT_LOGIN_IP: '12/15m',
  RATE_LIMIT_VALIDATE_IP: '3/1m',
  RATE_LIMIT_REGISTER_IP: '2/1h',
};

const cases = stores.flatMap((store) => backends.map((backend) => [store, backend] as const));

describe.each(cases)('rate limits on the %s store (%s)', (store: Store, backend) => {
  let ctx: TestApp;
  let fake: FakeProvider;
  const keyPrefix = newKeyPrefix();

  beforeAll(async () => {
    fake = await startFakeProvider({ clientId: 'accounts-test' });
    ctx = await createTestApp(backend, {
      ...limitsEnv(store, LIMITS, keyPrefix),
      ...fake.env('alpha', 'userinfo'),
    });
  });
  afterAll(async () => {
    if (ctx) await closeTestApp(ctx);
    if (fake) await fake.close();
    await deleteKeys(keyPrefix);
  });

  describe('validate (per IP, all three endpoints together)', () => {
    it('answers 429 with the envelope and Retry-After once an IP is over the limit', async () => {
      const ip = newIp();
      expectOk(await post(ctx.app, '/v1/validate/email', { email: `free${unique()}@example.com` }, ip));
      expectOk(await post(ctx.app, '/v1/validate/username', { username: `free${unique()}` }, ip));
      // A rejected value counts too: the limit is on asking, not on the answer.
      expect((await post(ctx.app, '/v1/validate/slug', { slug: 'a:b' }, ip)).statusCode).toBe(422);
      expectTooManyRequests(await post(ctx.app, '/v1/validate/slug', { slug: `free${unique()}` }, ip), 60);
      expectTooManyRequests(await post(ctx.app, '/v1/validate/email', { email: 'x@example.com' }, ip), 60);
    });

    it('counts each IP on its own', async () => {
      const [first, second] = [newIp(), newIp()];
      for (let i = 0; i < 3; i++) {
        expectOk(await post(ctx.app, '/v1/validate/username', { username: `free${unique()}` }, first));
      }
      expectTooManyRequests(await post(ctx.app, '/v1/validate/username', { username: 'someone' }, first), 60);
      expectOk(await post(ctx.app, '/v1/validate/username', { username: `free${unique()}` }, second));
    });

    it('counts an IPv6 client by its /64: hopping addresses inside it does not reset the limit', async () => {
      const prefix = `2001:db8:${lastIp.toString(16)}:${(++lastIp).toString(16)}`;
      for (const host of ['1', '2', 'abcd:1']) {
        expectOk(
          await post(ctx.app, '/v1/validate/username', { username: `free${unique()}` }, `${prefix}::${host}`),
        );
      }
      const hopped = await post(ctx.app, '/v1/validate/username', { username: 'someone' }, `${prefix}:ff::9`);
      expectTooManyRequests(hopped, 60);
      expectOk(
        await post(ctx.app, '/v1/validate/username', { username: `free${unique()}` }, `${prefix}1::1`),
      );
    });

    it('counts parallel requests exactly (the increment is atomic)', async () => {
      const ip = newIp();
      const responses = await Promise.all(
        Array.from({ length: 10 }, () =>
          post(ctx.app, '/v1/validate/email', { email: `free${unique()}@example.com` }, ip),
        ),
      );
      const statuses = responses.map((res) => res.statusCode).sort();
      expect(statuses).toEqual([200, 200, 200, 429, 429, 429, 429, 429, 429, 429]);
    });
  });

  describe('register (per IP)', () => {
    it('refuses a third sign-up from one IP, and writes nothing for it', async () => {
      const ip = newIp();
      const fields = (id: string) => ({
        type: 'email',
        email: `reg${id}@example.com`,
        username: `reg${id}`,
        gender: '0',
        user_agreement: 'on',
        password: `Sturdy-Passphrase-${id}`,
      });
      expectOk(await post(ctx.app, '/v1/auth/register', fields(unique()), ip));
      expectOk(await post(ctx.app, '/v1/auth/register', fields(unique()), ip));
      const refused = fields(unique());
      expectTooManyRequests(await post(ctx.app, '/v1/auth/register', refused, ip), 3600);
      // Another address may sign up, and the refused email is still free.
      expectOk(await post(ctx.app, '/v1/validate/email', { email: refused.email }, newIp()));
      expectOk(await post(ctx.app, '/v1/auth/register', refused, newIp()));
    });
  });

  describe('email login (failures per email and IP, attempts per IP)', () => {
    it('locks an (email, IP) pair after its failures, but not another email nor another IP', async () => {
      const [victim, neighbour] = [await signUp(ctx.app), await signUp(ctx.app)];
      const [attacker, owner] = [newIp(), newIp()];
      for (let i = 0; i < 3; i++) {
        expectAuthenticationFailed(await login(ctx.app, victim.email, 'Wrong-Guess-1234', attacker));
      }
      // Locked: even the right password is refused from this address, before any hashing.
      expectTooManyRequests(await login(ctx.app, victim.email, victim.password, attacker), 900);
      // The email is compared lower-cased, as the account lookup does.
      expectTooManyRequests(await login(ctx.app, victim.email.toUpperCase(), 'Guess-5678', attacker), 900);
      // The owner, elsewhere, is not locked out; the same address may still sign in to another account.
      expectOk(await login(ctx.app, victim.email, victim.password, owner));
      expectOk(await login(ctx.app, neighbour.email, neighbour.password, attacker));
    });

    it('leaves an unknown email to the per-IP limit (it is refused by validation, no account to guess)', async () => {
      const ip = newIp();
      const email = `nobody${unique()}@example.com`;
      for (let i = 0; i < 5; i++) {
        expect((await login(ctx.app, email, 'Some-Password-1', ip)).statusCode).toBe(422);
      }
    });

    it('does not count successes, and a success clears the failures before it', async () => {
      const account = await signUp(ctx.app);
      const ip = newIp();
      for (let i = 0; i < 3; i++) expectOk(await login(ctx.app, account.email, account.password, ip));
      for (let i = 0; i < 2; i++) {
        expectAuthenticationFailed(await login(ctx.app, account.email, 'Wrong-Guess-1234', ip));
      }
      expectOk(await login(ctx.app, account.email, account.password, ip));
      // Three more failures are allowed after the success; the fourth attempt is refused.
      for (let i = 0; i < 3; i++) {
        expectAuthenticationFailed(await login(ctx.app, account.email, 'Wrong-Guess-1234', ip));
      }
      expectTooManyRequests(await login(ctx.app, account.email, account.password, ip), 900);
    });

    it('lets parallel guesses through only up to the limit', async () => {
      const account = await signUp(ctx.app);
      const ip = newIp();
      const responses = await Promise.all(
        Array.from({ length: 6 }, () => login(ctx.app, account.email, 'Wrong-Guess-1234', ip)),
      );
      expect(responses.map((res) => res.statusCode).sort()).toEqual([401, 401, 401, 429, 429, 429]);
    });

    it('caps login attempts per IP across accounts, email and provider routes together', async () => {
      const account = await signUp(ctx.app);
      const ip = newIp();
      // Twelve attempts on twelve different accounts: no (email, IP) pair reaches its limit, the IP does.
      for (let i = 0; i < 10; i++) {
        expect((await login(ctx.app, `spray${unique()}@example.com`, 'Password-123', ip)).statusCode).toBe(
          422,
        );
      }
      for (let i = 0; i < 2; i++) {
        const alphaId = `spray-${unique()}`;
        const res = await post(
          ctx.app,
          '/v1/auth/login/alpha',
          { alpha_user_id: alphaId, alpha_access_token: 'not-a-real-token' },
          ip,
        );
        expectAuthenticationFailed(res);
      }
      expectTooManyRequests(await login(ctx.app, account.email, account.password, ip), 900);
      expectTooManyRequests(
        await post(ctx.app, '/v1/auth/login/alpha', { alpha_user_id: 'x', alpha_access_token: 'y' }, ip),
        900,
      );
      expectOk(await login(ctx.app, account.email, account.password, newIp()));
    });
  });

  describe('current_password on user/update (wrong guesses per account)', () => {
    it('locks password changes after the wrong guesses, from any address, but not another account', async () => {
      const [victim, other] = [await signUp(ctx.app), await signUp(ctx.app)];
      const change = (account: Account, current: string, ip: string) =>
        ctx.app.inject({
          method: 'POST',
          url: '/v1/user/update',
          remoteAddress: ip,
          headers: { authorization: `Bearer ${account.token}`, 'content-type': 'application/json' },
          payload: JSON.stringify({ password: `A-New-Passphrase-${unique()}`, current_password: current }),
        });
      for (let i = 0; i < 3; i++) {
        expectValidationError(await change(victim, `Wrong-Guess-${i}`, newIp()), {
          current_password: ['The current password is incorrect.'],
        });
      }
      // A stolen session cannot keep guessing by hopping addresses; even the right password waits.
      expectTooManyRequests(await change(victim, victim.password, newIp()), 900);
      expectOk(await change(other, other.password, newIp()));
    });
  });

  describe('provider login (failures per identity and IP)', () => {
    it('locks an identity after rejected tokens from one IP, not another identity nor another IP', async () => {
      const [victimId, otherId] = [`alpha-${unique()}`, `alpha-${unique()}`];
      for (const id of [victimId, otherId]) {
        const id_ = unique();
        expectOk(
          await post(
            ctx.app,
            '/v1/auth/register',
            {
              type: 'alpha',
              email: `alpha${id_}@example.com`,
              username: `alpha${id_}`,
              gender: '0',
              user_agreement: 'on',
              alpha_user_id: id,
              alpha_access_token: fake.issueAccessToken(id),
            },
            newIp(),
          ),
        );
      }
      const [attacker, owner] = [newIp(), newIp()];
      const alphaLogin = (id: string, token: string, ip: string) =>
        post(ctx.app, '/v1/auth/login/alpha', { alpha_user_id: id, alpha_access_token: token }, ip);
      for (let i = 0; i < 3; i++) expectAuthenticationFailed(await alphaLogin(victimId, 'forged', attacker));
      expectTooManyRequests(await alphaLogin(victimId, fake.issueAccessToken(victimId), attacker), 900);
      expectOk(await alphaLogin(victimId, fake.issueAccessToken(victimId), owner));
      expectOk(await alphaLogin(otherId, fake.issueAccessToken(otherId), attacker));
    });

    it('never counts a not_registered answer as a failure: the provider vouched for the identity', async () => {
      const id = `alpha-${unique()}`;
      const ip = newIp();
      const alphaLogin = (token: string) =>
        post(ctx.app, '/v1/auth/login/alpha', { alpha_user_id: id, alpha_access_token: token }, ip);
      // Twice the failure limit of not_registered answers (still under the per-IP limit of 12)...
      for (let i = 0; i < 6; i++) expectNotRegistered(await alphaLogin(fake.issueAccessToken(id)));
      // ...and the counter is untouched: two rejected tokens are still failures, not yet a lock.
      for (let i = 0; i < 2; i++) expectAuthenticationFailed(await alphaLogin('forged'));
      const id_ = unique();
      expectOk(
        await post(
          ctx.app,
          '/v1/auth/register',
          {
            type: 'alpha',
            email: `alpha${id_}@example.com`,
            username: `alpha${id_}`,
            gender: '0',
            user_agreement: 'on',
            alpha_user_id: id,
            alpha_access_token: fake.issueAccessToken(id),
          },
          newIp(),
        ),
      );
      expectOk(await alphaLogin(fake.issueAccessToken(id)));
    });
  });
});

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
