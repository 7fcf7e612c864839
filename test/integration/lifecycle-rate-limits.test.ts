import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeTestApp, createTestApp, type TestApp } from '../helpers/app.js';
import { expectTooManyRequests } from '../helpers/client-requests.js';
import { backends } from '../helpers/database.js';
import { bearer, registerUser, unique } from '../helpers/factories.js';
import { expectOk } from '../helpers/http.js';
import { outboxFor } from '../helpers/mail.js';
import { type FakePortOne, startFakePortOne } from '../helpers/portone.js';
import { deleteKeys, limitsEnv, newKeyPrefix, type Store, stores } from '../helpers/redis.js';

let lastIp = 0;
/** A fresh client address per use, so tests sharing an app never share a per-IP counter. */
function newIp(): string {
  lastIp += 1;
  return `10.99.${(lastIp >> 8) & 255}.${lastIp & 255}`;
}

function post(app: FastifyInstance, url: string, body: Record<string, string>, ip: string, token?: string) {
  return app.inject({
    method: 'POST',
    url,
    remoteAddress: ip,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(token ? bearer(token) : {}) },
    payload: new URLSearchParams(body).toString(),
  });
}

const LIMITS = {
  RATE_LIMIT_REGISTER_IP: '1000/1h',
  RATE_LIMIT_EMAIL_RESEND: '2/1h',
  RATE_LIMIT_PASSWORD_FORGOT_EMAIL: '2/1h',
  RATE_LIMIT_PASSWORD_FORGOT_IP: '4/1h',
  RATE_LIMIT_IDENTITY_VERIFICATION: '2/1h',
};

const cases = stores.flatMap((store) => backends.map((backend) => [store, backend] as const));

describe.each(cases)('account-lifecycle rate limits on the %s store (%s)', (store: Store, backend) => {
  let ctx: TestApp;
  let portone: FakePortOne;
  const keyPrefix = newKeyPrefix();

  beforeAll(async () => {
    portone = await startFakePortOne();
    ctx = await createTestApp(backend, { ...limitsEnv(store, LIMITS, keyPrefix), ...portone.env() });
  });
  afterAll(async () => {
    if (ctx) await closeTestApp(ctx);
    await portone?.close();
    await deleteKeys(keyPrefix);
  });

  const forgot = (email: string, ip: string) => post(ctx.app, '/v1/auth/password/forgot', { email }, ip);

  it('throttles forgot per address, whether or not an account has it, from any IP', async () => {
    const known = (await registerUser(ctx.app)).email;
    const unknown = `nobody${unique()}@example.com`;
    for (const email of [known, unknown]) {
      expectOk(await forgot(email, newIp()));
      expectOk(await forgot(email.toUpperCase(), newIp()));
      // The same answer for both: a 429 tells no more than a 200 about whether the account exists.
      expectTooManyRequests(await forgot(email, newIp()), 3600);
    }
    await ctx.mailer.idle();
    const resets = (await outboxFor(ctx.database.handle, known)).filter(
      (row) => row.kind === 'password_reset',
    );
    expect(resets).toHaveLength(2);
  });

  it('throttles forgot per IP across addresses', async () => {
    const ip = newIp();
    for (let i = 0; i < 4; i++) expectOk(await forgot(`many${unique()}@example.com`, ip));
    expectTooManyRequests(await forgot(`many${unique()}@example.com`, ip), 3600);
    expectOk(await forgot(`many${unique()}@example.com`, newIp()));
  });

  it('throttles verification resends per user', async () => {
    const first = await registerUser(ctx.app);
    const second = await registerUser(ctx.app);
    for (let i = 0; i < 2; i++)
      expectOk(await post(ctx.app, '/v1/user/email/resend', {}, newIp(), first.token));
    expectTooManyRequests(await post(ctx.app, '/v1/user/email/resend', {}, newIp(), first.token), 3600);
    expectOk(await post(ctx.app, '/v1/user/email/resend', {}, newIp(), second.token));
  });

  it('throttles identity verification per user, start and verify together', async () => {
    const first = await registerUser(ctx.app);
    const second = await registerUser(ctx.app);
    const started = expectOk<{ identity_verification_id: string }>(
      await post(ctx.app, '/v1/user/identity/start', {}, newIp(), first.token),
    );
    const verify = { identity_verification_id: started.identity_verification_id };
    portone.script(verify.identity_verification_id, 'VERIFIED', portone.person());
    expectOk(await post(ctx.app, '/v1/user/identity/verify', verify, newIp(), first.token));
    expectTooManyRequests(await post(ctx.app, '/v1/user/identity/start', {}, newIp(), first.token), 3600);
    expectOk(await post(ctx.app, '/v1/user/identity/start', {}, newIp(), second.token));
  });
});
