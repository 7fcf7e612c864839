import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeProvider, startFakeProvider } from '../../src/dev/fake-provider.js';
import { newId } from '../../src/lib/ids.js';
import { hashApiToken, newApiToken } from '../../src/lib/tokens.js';
import { closeTestApp, createTestApp, type TestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, type RegisteredUser, registerUser } from '../helpers/factories.js';
import { expectError, expectOk, expectValidationError, postForm, UNAUTHENTICATED } from '../helpers/http.js';
import { latestToken } from '../helpers/mail.js';
import { providerLogin, providerSignUp } from '../helpers/providers.js';
import {
  enableTotp,
  expectSecondFactorRequired,
  loginByEmail,
  secondFactor,
} from '../helpers/second-factor.js';
import { currentCode } from '../helpers/totp.js';
import { PASSKEY_ENV, PASSKEY_ORIGIN, passkeyFlows, SoftwareAuthenticator } from '../helpers/webauthn.js';

type SignedIn = { user: { id: string; api_token: string } };

/**
 * One gate for every session: each way to a token, attacked as the attack on the grace period and the
 * second factor found them (a cancel that skipped the code, sessions made during the grace period).
 */
describe.each(backends)('%s: the session gate', (backend) => {
  let fake: FakeProvider;
  let ctx: TestApp;
  beforeAll(async () => {
    fake = await startFakeProvider({ clientId: 'accounts-test' });
    ctx = await createTestApp(backend, { ...fake.env('alpha', 'userinfo'), ...PASSKEY_ENV });
  });
  afterAll(async () => {
    if (ctx) await closeTestApp(ctx);
    if (fake) await fake.close();
  });
  const db = () => ctx.database.handle.db;
  const me = (token: string) =>
    ctx.app.inject({ method: 'GET', url: '/v1/user/get', headers: bearer(token) });
  const cancel = (body: Record<string, string>) => postForm(ctx.app, '/v1/auth/deletion/cancel', body);
  const scheduleDeletion = async (user: RegisteredUser): Promise<string> =>
    expectOk<{ scheduled_for: string }>(
      await postForm(ctx.app, '/v1/user/delete', { current_password: user.password }, bearer(user.token)),
    ).scheduled_for;
  const expectDeletionScheduled = (res: Parameters<typeof expectError>[0], scheduledFor: string) =>
    expectError(res, 409, 'ConflictHttpException', 'This account is scheduled for deletion.', {
      status: 'deletion_scheduled',
      scheduled_for: scheduledFor,
    });
  const tokensOf = async (userId: string) =>
    Number(
      (
        await sql<{ n: number }>`SELECT count(*)::int AS n FROM api_tokens WHERE user_id = ${userId}`.execute(
          db(),
        )
      ).rows[0]?.n,
    );

  it('a cancel by password of a two-factor account needs the code, then restores and signs in', async () => {
    const user = await enableTotp(ctx.app, await registerUser(ctx.app));
    const scheduledFor = await scheduleDeletion(user);
    const challenge = expectSecondFactorRequired(
      await cancel({ email: user.email, password: user.password }),
    );
    // Nothing is restored, and no token made, until the code comes.
    expect(await tokensOf(user.id)).toBe(0);
    expectDeletionScheduled(await loginByEmail(ctx.app, user), scheduledFor);
    expectValidationError(await secondFactor(ctx.app, { challenge, code: '000000' }), {
      code: ['The code is invalid.'],
    });
    const signedIn = expectOk<SignedIn>(
      await secondFactor(ctx.app, { challenge, code: currentCode(user.secret) }),
    );
    expect(signedIn.user.id).toBe(user.id);
    expectOk(await me(signedIn.user.api_token));
    // The deletion is taken back: a login asks for the code again, and the mailed link is dead.
    expectSecondFactorRequired(await loginByEmail(ctx.app, user));
    const link = await latestToken(ctx.database.handle, user.email, 'deletion_scheduled');
    expectValidationError(await cancel({ token: link }), { token: ['The selected token is invalid.'] });
  });

  it('the mailed cancel link of a two-factor account is only the first factor', async () => {
    const user = await enableTotp(ctx.app, await registerUser(ctx.app));
    const scheduledFor = await scheduleDeletion(user);
    const link = await latestToken(ctx.database.handle, user.email, 'deletion_scheduled');
    const challenge = expectSecondFactorRequired(await cancel({ token: link }));
    expectDeletionScheduled(await loginByEmail(ctx.app, user), scheduledFor);
    const signedIn = expectOk<SignedIn>(
      await secondFactor(ctx.app, { challenge, recovery_code: user.recoveryCodes[0] as string }),
    );
    expectOk(await me(signedIn.user.api_token));
    expectValidationError(await cancel({ token: link }), { token: ['The selected token is invalid.'] });
  });

  it('completing a challenge started before the deletion is refused like a password login', async () => {
    const user = await enableTotp(ctx.app, await registerUser(ctx.app));
    const challenge = expectSecondFactorRequired(await loginByEmail(ctx.app, user));
    const scheduledFor = await scheduleDeletion(user);
    expectDeletionScheduled(
      await secondFactor(ctx.app, { challenge, code: currentCode(user.secret) }),
      scheduledFor,
    );
    expect(await tokensOf(user.id)).toBe(0);
  });

  it('a challenge open when the deletion was scheduled dies with it: after the cancel it is dead', async () => {
    const user = await enableTotp(ctx.app, await registerUser(ctx.app));
    const before = expectSecondFactorRequired(await loginByEmail(ctx.app, user));
    await scheduleDeletion(user);
    const link = await latestToken(ctx.database.handle, user.email, 'deletion_scheduled');
    const cancelChallenge = expectSecondFactorRequired(await cancel({ token: link }));
    expectOk(
      await secondFactor(ctx.app, {
        challenge: cancelChallenge,
        recovery_code: user.recoveryCodes[0] as string,
      }),
    );
    expectError(
      await secondFactor(ctx.app, { challenge: before, code: currentCode(user.secret) }),
      401,
      'Unauthorized',
      'The login credentials are invalid.',
      { status: 'authentication_failed' },
    );
    // Only the cancel's own session exists.
    expect(await tokensOf(user.id)).toBe(1);
  });

  it('a passkey login during the grace period is refused like a password login', async () => {
    const user = await registerUser(ctx.app);
    const flows = passkeyFlows(ctx.app);
    const authenticator = new SoftwareAuthenticator(PASSKEY_ORIGIN);
    await flows.addPasskey(user.token, authenticator, { current_password: user.password });
    const scheduledFor = await scheduleDeletion(user);
    const { options, challenge_id } = await flows.signInOptions();
    const res = await flows.post('/auth/login/passkey', {
      challenge_id,
      response: authenticator.get(options),
    });
    expectDeletionScheduled(res, scheduledFor);
    expect(await tokensOf(user.id)).toBe(0);
    // After a cancel, the passkey signs in again.
    expectOk(await cancel({ email: user.email, password: user.password }));
    const again = await flows.signInOptions();
    expectOk(
      await flows.post('/auth/login/passkey', {
        challenge_id: again.challenge_id,
        response: authenticator.get(again.options),
      }),
    );
  });

  it('a provider login and a reset completion during the grace period are refused too', async () => {
    const alphaId = `gate-${Date.now()}`;
    const registered = expectOk<SignedIn & { user: { email: string } }>(
      await postForm(
        ctx.app,
        '/v1/auth/register',
        providerSignUp('alpha', alphaId, fake.issueAccessToken(alphaId)),
      ),
    );
    const { id, email, api_token: token } = registered.user;
    // A reset link mailed before the deletion.
    expectOk(await postForm(ctx.app, '/v1/auth/password/forgot', { email }));
    // The link is written just after the answer (the same work whether or not the address is known).
    await ctx.mailer.idle();
    const resetLink = await latestToken(ctx.database.handle, email, 'password_reset');
    const proof = { alpha_user_id: alphaId, alpha_access_token: fake.issueAccessToken(alphaId) };
    const { scheduled_for: scheduledFor } = expectOk<{ scheduled_for: string }>(
      await postForm(ctx.app, '/v1/user/delete', proof, bearer(token)),
    );
    expectDeletionScheduled(
      await providerLogin(ctx.app, 'alpha', alphaId, fake.issueAccessToken(alphaId)),
      scheduledFor,
    );
    expectDeletionScheduled(
      await postForm(ctx.app, '/v1/auth/password/reset', {
        token: resetLink,
        password: 'Another-Passphrase-2',
      }),
      scheduledFor,
    );
    expect(await tokensOf(id)).toBe(0);
    // Nothing of the reset was written: the account still has no password.
    const row = await sql<{
      password_hash: string | null;
    }>`SELECT password_hash FROM users WHERE id = ${id}`.execute(db());
    expect(row.rows[0]?.password_hash).toBeNull();
  });

  it('a cancel leaves every token older than it revoked', async () => {
    const user = await registerUser(ctx.app);
    await scheduleDeletion(user);
    // A token written during the grace period by any path at all (here: straight into the table).
    const during = newApiToken();
    await sql`INSERT INTO api_tokens (id, user_id, token_hash, name)
      VALUES (${newId()}, ${user.id}, ${hashApiToken(during)}, 'during the grace period')`.execute(db());
    expectError(await me(during), 401, ...UNAUTHENTICATED);
    const signedIn = expectOk<SignedIn>(await cancel({ email: user.email, password: user.password }));
    expectOk(await me(signedIn.user.api_token));
    expectError(await me(during), 401, ...UNAUTHENTICATED);
    expectError(await me(user.token), 401, ...UNAUTHENTICATED);
    expect(await tokensOf(user.id)).toBe(1);
  });
});
