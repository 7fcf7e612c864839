import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, registerUser } from '../helpers/factories.js';
import { expectError, expectOk, expectValidationError, postForm, postJson } from '../helpers/http.js';
import {
  awayFromStepEdge,
  enableTotp,
  expectSecondFactorRequired,
  loginByEmail,
  secondFactor,
  type TwoFactorUser,
} from '../helpers/second-factor.js';
import { currentCode } from '../helpers/totp.js';
import { PASSKEY_ENV, PASSKEY_ORIGIN, passkeyFlows, SoftwareAuthenticator } from '../helpers/webauthn.js';

const INVALID_CODE = { code: ['The code is invalid.'] };
const LOCKED = {
  code: [
    'Too many wrong codes: the authenticator is locked. Use a recovery code, or sign in with a passkey.',
  ],
};

/**
 * Wrong second-factor codes are bounded per account in total (NIST SP 800-63B §5.2.2), with no rate limit
 * on (the test app's default): growing waits after the first few, a lock at 100 in a row, and the owner's
 * ways back in.
 */
describe.each(backends)('%s: wrong second-factor codes, bounded in total', (backend) => {
  const ctx = useTestApp(backend, PASSKEY_ENV);
  const db = () => ctx.database.handle.db;
  const wrongOf = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');
  const run = async (userId: string) =>
    (
      await sql<{ failed_attempts: number }>`SELECT failed_attempts FROM totp_credentials
        WHERE user_id = ${userId}`.execute(db())
    ).rows[0]?.failed_attempts;
  /** The run of wrong codes as if it had been made over hours: `failures` in a row, the last long ago. */
  const setRun = (userId: string, failures: number) =>
    sql`UPDATE totp_credentials SET failed_attempts = ${failures},
      last_failed_at = now() - interval '2 hours' WHERE user_id = ${userId}`.execute(db());
  /** Moves the last wrong code `seconds` into the past (the wait runs from it). */
  const age = (userId: string, seconds: number) =>
    sql`UPDATE totp_credentials SET last_failed_at = last_failed_at - make_interval(secs => ${seconds})
      WHERE user_id = ${userId}`.execute(db());
  const challengeOf = async (user: TwoFactorUser) =>
    expectSecondFactorRequired(await loginByEmail(ctx.app, user));
  const expectWait = (res: Awaited<ReturnType<typeof secondFactor>>, seconds: number) => {
    expectError(res, 429, 'TooManyRequestsHttpException', 'Too Many Attempts.', { retry_after: seconds });
    expect(res.headers['retry-after']).toBe(String(seconds));
  };

  it('makes every wrong code after the 6th wait longer, with a 429 and Retry-After', async () => {
    const user = await enableTotp(ctx.app, await registerUser(ctx.app));
    const right = currentCode(user.secret);
    // Five wrong codes kill a challenge; the account's run goes on across challenges.
    for (const challenge of [await challengeOf(user), await challengeOf(user)]) {
      for (let i = 0; i < 3; i++) {
        expectValidationError(await secondFactor(ctx.app, { challenge, code: wrongOf(right) }), INVALID_CODE);
      }
    }
    expect(await run(user.id)).toBe(6);
    const challenge = await challengeOf(user);
    // The right code waits too: nothing is checked until the wait is over.
    expectWait(await secondFactor(ctx.app, { challenge, code: right }), 30);
    await age(user.id, 31);
    expectValidationError(await secondFactor(ctx.app, { challenge, code: wrongOf(right) }), INVALID_CODE);
    expectWait(await secondFactor(ctx.app, { challenge, code: right }), 60);
    expect(await run(user.id)).toBe(7);
    // Once the wait is over the right code signs in, and ends the run.
    await age(user.id, 61);
    expectOk(await secondFactor(ctx.app, { challenge, code: right }));
    expect(await run(user.id)).toBe(0);
  });

  it('does not count a right code sent again (a double submit) as a wrong one', async () => {
    await awayFromStepEdge();
    const user = await enableTotp(ctx.app, await registerUser(ctx.app));
    const right = currentCode(user.secret);
    const [first, second] = [await challengeOf(user), await challengeOf(user)];
    expectOk(await secondFactor(ctx.app, { challenge: first, code: right }));
    // Already used: the answer of a wrong code, but no guess, however often (five would kill a challenge).
    for (let i = 0; i < 6; i++) {
      expectValidationError(await secondFactor(ctx.app, { challenge: second, code: right }), INVALID_CODE);
    }
    const regenerate = () =>
      postForm(
        ctx.app,
        '/v1/user/2fa/recovery-codes/regenerate',
        { current_password: user.password, code: right },
        bearer(user.token),
      );
    expectValidationError(await regenerate(), INVALID_CODE);
    expect(await run(user.id)).toBe(0);
    // The second challenge is still alive.
    expectOk(
      await secondFactor(ctx.app, { challenge: second, recovery_code: user.recoveryCodes[0] as string }),
    );
  });

  it('counts two wrong codes sent at once as two', async () => {
    const user = await enableTotp(ctx.app, await registerUser(ctx.app));
    const wrong = wrongOf(currentCode(user.secret));
    const [first, second] = [await challengeOf(user), await challengeOf(user)];
    const answers = await Promise.all([
      secondFactor(ctx.app, { challenge: first, code: wrong }),
      secondFactor(ctx.app, { challenge: second, code: wrong }),
    ]);
    for (const res of answers) expectValidationError(res, INVALID_CODE);
    expect(await run(user.id)).toBe(2);
  });

  it('locks the authenticator at 100 wrong codes in a row; a recovery code signs in and unlocks', async () => {
    const user = await enableTotp(ctx.app, await registerUser(ctx.app));
    const right = currentCode(user.secret);
    await setRun(user.id, 99);
    const challenge = await challengeOf(user);
    expectValidationError(await secondFactor(ctx.app, { challenge, code: wrongOf(right) }), INVALID_CODE);
    expect(await run(user.id)).toBe(100);
    // However long one waits, the authenticator takes no code: not even the right one.
    await age(user.id, 7200);
    expectValidationError(await secondFactor(ctx.app, { challenge, code: right }), LOCKED);
    expect(await run(user.id)).toBe(100);
    // A recovery code is the owner's way back: it signs in and ends the run.
    expectOk(await secondFactor(ctx.app, { challenge, recovery_code: user.recoveryCodes[0] as string }));
    expect(await run(user.id)).toBe(0);
    expectOk(await secondFactor(ctx.app, { challenge: await challengeOf(user), code: right }));
  });

  it('a passkey unlocks: its sign-in, or a re-authentication with it', async () => {
    const user = await enableTotp(ctx.app, await registerUser(ctx.app));
    const flows = passkeyFlows(ctx.app);
    const authenticator = new SoftwareAuthenticator(PASSKEY_ORIGIN);
    // Adding a passkey to an account with a second factor takes two factors: the password and a code.
    const twoFactors = { current_password: user.password, recovery_code: user.recoveryCodes[1] as string };
    expectOk(await postForm(ctx.app, '/v1/user/reauth', twoFactors, bearer(user.token)));
    await flows.addPasskey(user.token, authenticator, {});
    const right = currentCode(user.secret);
    await setRun(user.id, 100);
    // Signed in already, re-authenticated with the password only: the locked authenticator takes no code.
    const disable = (proof: Record<string, unknown>) =>
      postJson(ctx.app, '/v1/user/2fa/disable', proof, bearer(user.token));
    expectValidationError(await disable({ current_password: user.password, code: right }), LOCKED);
    // A passkey sign-in proves both factors: it is let in and ends the run.
    const { options, challenge_id } = await flows.signInOptions();
    expectOk(await flows.post('/auth/login/passkey', { challenge_id, response: authenticator.get(options) }));
    expect(await run(user.id)).toBe(0);
    // A passkey re-authentication unlocks too: then the right code disables the factor.
    await setRun(user.id, 100);
    const reauth = await flows.reauthProof(user.token, authenticator);
    expectOk(await disable({ ...reauth, code: right }));
    expectOk(await postForm(ctx.app, '/v1/auth/login/email', { email: user.email, password: user.password }));
  });
});
