import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeProvider, startFakeProvider } from '../../src/dev/fake-provider.js';
import { closeTestApp, createTestApp, type TestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, registerUser } from '../helpers/factories.js';
import { expectOk, expectValidationError, postForm } from '../helpers/http.js';
import { latestToken } from '../helpers/mail.js';
import { expectAuthenticationFailed, providerLogin, providerSignUp } from '../helpers/providers.js';
import {
  awayFromStepEdge,
  enableTotp,
  expectSecondFactorRequired,
  loginByEmail,
  secondFactor,
  type TotpSetup,
} from '../helpers/second-factor.js';
import { eventsOf } from '../helpers/security-events.js';
import { currentCode } from '../helpers/totp.js';

type SignedIn = { user: { id: string; api_token: string; email: string } };
const INVALID_CODE = { code: ['The code is invalid.'] };

describe.each(backends)('%s: signing in with a second factor', (backend) => {
  let fake: FakeProvider;
  let ctx: TestApp;
  beforeAll(async () => {
    fake = await startFakeProvider({ clientId: 'accounts-test' });
    ctx = await createTestApp(backend, fake.env('alpha', 'userinfo'));
  });
  afterAll(async () => {
    if (ctx) await closeTestApp(ctx);
    if (fake) await fake.close();
  });
  const twoFactorUser = async () => enableTotp(ctx.app, await registerUser(ctx.app));
  const signInDetails = async (userId: string) =>
    (await eventsOf(ctx.database.handle, userId))
      .filter((event) => event.type === 'sign_in')
      .map((event) => event.details);
  const me = (token: string) =>
    ctx.app.inject({ method: 'GET', url: '/v1/user/get', headers: bearer(token) });

  it('asks for the second factor only after the password, and the code gives the token once', async () => {
    await awayFromStepEdge();
    const user = await twoFactorUser();
    expectAuthenticationFailed(await loginByEmail(ctx.app, { ...user, password: 'wrong-password-here' }));
    const challenge = expectSecondFactorRequired(await loginByEmail(ctx.app, user));
    const tokensBefore = await ctx.database.handle.db
      .selectFrom('api_tokens')
      .select('id')
      .where('user_id', '=', user.id)
      .execute();
    expect(tokensBefore).toHaveLength(1);
    expectValidationError(await secondFactor(ctx.app, { challenge }), {
      code: ['The code field is required.'],
    });
    const signedIn = expectOk<SignedIn>(
      await secondFactor(ctx.app, { challenge, code: currentCode(user.secret) }),
    );
    expect(signedIn.user.id).toBe(user.id);
    expect(expectOk<SignedIn>(await me(signedIn.user.api_token)).user.email).toBe(user.email);
    // Used up: the same challenge, even with a fresh code, is dead.
    expectAuthenticationFailed(await secondFactor(ctx.app, { challenge, code: currentCode(user.secret, 1) }));
    expectAuthenticationFailed(await secondFactor(ctx.app, { challenge: 'x'.repeat(43), code: '123456' }));
  });

  it('accepts a code once: a replay, or an earlier step, is refused', async () => {
    await awayFromStepEdge();
    const user = await twoFactorUser();
    const now = currentCode(user.secret);
    expectOk(
      await secondFactor(ctx.app, {
        challenge: expectSecondFactorRequired(await loginByEmail(ctx.app, user)),
        code: now,
      }),
    );
    const challenge = expectSecondFactorRequired(await loginByEmail(ctx.app, user));
    expectValidationError(await secondFactor(ctx.app, { challenge, code: now }), INVALID_CODE);
    // The step the enable used (one before now) is refused too; the next step's code is fine.
    expectValidationError(
      await secondFactor(ctx.app, { challenge, code: currentCode(user.secret, -1) }),
      INVALID_CODE,
    );
    expectOk(await secondFactor(ctx.app, { challenge, code: currentCode(user.secret, 1) }));
  });

  it('refuses a code from two steps ahead; one step ahead is fine', async () => {
    await awayFromStepEdge();
    const user = await twoFactorUser();
    const challenge = expectSecondFactorRequired(await loginByEmail(ctx.app, user));
    expectValidationError(
      await secondFactor(ctx.app, { challenge, code: currentCode(user.secret, 2) }),
      INVALID_CODE,
    );
    expectOk(await secondFactor(ctx.app, { challenge, code: currentCode(user.secret, 1) }));
  });

  it('a challenge dies after 5 wrong codes: the right one then gets authentication_failed', async () => {
    await awayFromStepEdge();
    const user = await twoFactorUser();
    const challenge = expectSecondFactorRequired(await loginByEmail(ctx.app, user));
    const right = currentCode(user.secret);
    const wrong = String((Number(right) + 1) % 1_000_000).padStart(6, '0');
    for (let i = 0; i < 5; i++) {
      expectValidationError(await secondFactor(ctx.app, { challenge, code: wrong }), INVALID_CODE);
    }
    expectAuthenticationFailed(await secondFactor(ctx.app, { challenge, code: right }));
    // The account itself is not locked: a new login gets a new challenge.
    const next = expectSecondFactorRequired(await loginByEmail(ctx.app, user));
    expectOk(await secondFactor(ctx.app, { challenge: next, code: right }));
  });

  it('an expired challenge is refused', async () => {
    await awayFromStepEdge();
    const user = await twoFactorUser();
    const challenge = expectSecondFactorRequired(await loginByEmail(ctx.app, user));
    await sql`UPDATE second_factor_challenges SET expires_at = now() - interval '1 second'
      WHERE user_id = ${user.id}`.execute(ctx.database.handle.db);
    expectAuthenticationFailed(await secondFactor(ctx.app, { challenge, code: currentCode(user.secret) }));
  });

  it('a recovery code works once', async () => {
    const user = await twoFactorUser();
    const code = user.recoveryCodes[1] as string;
    const first = expectSecondFactorRequired(await loginByEmail(ctx.app, user));
    expectOk(await secondFactor(ctx.app, { challenge: first, recovery_code: code.replace('-', ' ') }));
    const second = expectSecondFactorRequired(await loginByEmail(ctx.app, user));
    expectValidationError(await secondFactor(ctx.app, { challenge: second, recovery_code: code }), {
      recovery_code: ['The recovery code is invalid.'],
    });
    expectOk(
      await secondFactor(ctx.app, { challenge: second, recovery_code: user.recoveryCodes[2] as string }),
    );
  });

  it('a provider login asks for the second factor too', async () => {
    await awayFromStepEdge();
    const alphaId = `a-${Date.now()}`;
    const registered = expectOk<SignedIn>(
      await postForm(
        ctx.app,
        '/v1/auth/register',
        providerSignUp('alpha', alphaId, fake.issueAccessToken(alphaId)),
      ),
    );
    const token = registered.user.api_token;
    const proof = { alpha_user_id: alphaId, alpha_access_token: fake.issueAccessToken(alphaId) };
    const setup = expectOk<TotpSetup>(
      await postForm(ctx.app, '/v1/user/2fa/totp/setup', proof, bearer(token)),
    );
    expectOk(
      await postForm(ctx.app, '/v1/user/2fa/totp/enable', { code: currentCode(setup.secret) }, bearer(token)),
    );
    expectAuthenticationFailed(await providerLogin(ctx.app, 'alpha', alphaId, 'not-a-token'));
    const challenge = expectSecondFactorRequired(
      await providerLogin(ctx.app, 'alpha', alphaId, fake.issueAccessToken(alphaId)),
    );
    const signedIn = expectOk<SignedIn>(
      await secondFactor(ctx.app, { challenge, code: currentCode(setup.secret, 1) }),
    );
    expect(signedIn.user.id).toBe(registered.user.id);
    // Logged with the first factor's method, once the code completed it.
    expect(await signInDetails(registered.user.id)).toEqual([
      { method: 'alpha', second_factor: 'totp', new_device: false },
    ]);
  });

  it('a password reset keeps the second factor', async () => {
    await awayFromStepEdge();
    const user = await twoFactorUser();
    expectOk(await postForm(ctx.app, '/v1/auth/password/forgot', { email: user.email }));
    await ctx.mailer.idle();
    const resetToken = await latestToken(ctx.database.handle, user.email, 'password_reset');
    const password = `New-Harbour-Light-${Date.now()}`;
    // The mailbox is one factor: the password is set, and the answer is the login's challenge, no token.
    expectSecondFactorRequired(
      await postForm(ctx.app, '/v1/auth/password/reset', { token: resetToken, password }),
    );
    const challenge = expectSecondFactorRequired(
      await loginByEmail(ctx.app, { email: user.email, password }),
    );
    expectOk(await secondFactor(ctx.app, { challenge, code: currentCode(user.secret) }));
    // The reset's own challenge was never completed: only the login's sign-in is logged.
    expect(await signInDetails(user.id)).toEqual([
      { method: 'email', second_factor: 'totp', new_device: false },
    ]);
  });
});
