import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeProvider, startFakeProvider } from '../../src/dev/fake-provider.js';
import { closeTestApp, createTestApp, type TestApp } from '../helpers/app.js';
import {
  type Account,
  expectTooManyRequests,
  login,
  newIp,
  newIpv6Prefix,
  post,
  signUp,
} from '../helpers/client-requests.js';
import { backends } from '../helpers/database.js';
import { unique } from '../helpers/factories.js';
import { expectOk, expectValidationError } from '../helpers/http.js';
import { expectAuthenticationFailed, expectNotRegistered } from '../helpers/providers.js';
import { deleteKeys, limitsEnv, newKeyPrefix, type Store, stores } from '../helpers/redis.js';

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
      expectValidationError(await post(ctx.app, '/v1/validate/slug', { slug: 'a:b' }, ip), {
        slug: ['The slug must be at least 4 characters.'],
      });
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
      const prefix = newIpv6Prefix();
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
        expectValidationError(await login(ctx.app, email, 'Some-Password-1', ip), {
          email: ['The selected email is invalid.'],
        });
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

    it('counts wrong proofs at user/reauth of one session on the same counter', async () => {
      const victim = await signUp(ctx.app);
      const reauth = (current: string) =>
        ctx.app.inject({
          method: 'POST',
          url: '/v1/user/reauth',
          remoteAddress: newIp(),
          headers: { authorization: `Bearer ${victim.token}`, 'content-type': 'application/json' },
          payload: JSON.stringify({ current_password: current }),
        });
      for (let i = 0; i < 3; i++) {
        expectValidationError(await reauth(`Wrong-Guess-${i}`), {
          current_password: ['The current password is incorrect.'],
        });
      }
      expectTooManyRequests(await reauth(victim.password), 900);
    });
  });

  describe('user/reauth (wrong proofs per session and per account)', () => {
    it("locks the session that guesses, not its owner's other session", async () => {
      const owner = await signUp(ctx.app);
      const stolen = expectOk<{ user: { api_token: string } }>(
        await login(ctx.app, owner.email, owner.password, newIp()),
      ).user.api_token;
      const reauth = (token: string, current: string) =>
        ctx.app.inject({
          method: 'POST',
          url: '/v1/user/reauth',
          remoteAddress: newIp(),
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          payload: JSON.stringify({ current_password: current }),
        });
      for (let i = 0; i < 3; i++) {
        expectValidationError(await reauth(stolen, `Wrong-Guess-${i}`), {
          current_password: ['The current password is incorrect.'],
        });
      }
      expectTooManyRequests(await reauth(stolen, owner.password), 900);
      expectOk(await reauth(owner.token, owner.password));
    });
  });

  describe('provider login (failures per identity and IP)', () => {
    /** Signs `id` up through alpha, from an address of its own (the per-IP limits stay untouched). */
    const registerAlpha = async (id: string) => {
      const name = `alpha${unique()}`;
      const fields = { type: 'alpha', email: `${name}@example.com`, username: name, gender: '0' };
      const token = fake.issueAccessToken(id);
      const body = { ...fields, user_agreement: 'on', alpha_user_id: id, alpha_access_token: token };
      expectOk(await post(ctx.app, '/v1/auth/register', body, newIp()));
    };

    it('locks an identity after rejected tokens from one IP, not another identity nor another IP', async () => {
      const [victimId, otherId] = [`alpha-${unique()}`, `alpha-${unique()}`];
      for (const id of [victimId, otherId]) await registerAlpha(id);
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
      await registerAlpha(id);
      expectOk(await alphaLogin(fake.issueAccessToken(id)));
    });
  });
});
