import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, type RegisteredUser, registerUser, unique } from '../helpers/factories.js';
import { expectError, expectOk, expectValidationError, postForm, UNAUTHENTICATED } from '../helpers/http.js';

const PASSWORD_REQUIRED = { current_password: ['The current password field is required.'] };
const PASSWORD_INCORRECT = { current_password: ['The current password is incorrect.'] };
const TEN_MINUTES = 10 * 60_000;

/** `POST /{v}/user/reauth`: one proof opens a window of the session in which the sensitive changes ask none. */
describe.each(backends)('%s: the re-authentication window', (backend) => {
  const ctx = useTestApp(backend);
  const post = (path: string, token: string, body: Record<string, string> = {}, version = 'v1') =>
    postForm(ctx.app, `/${version}${path}`, body, bearer(token));
  const reauth = async (user: RegisteredUser, token = user.token, version = 'v1') =>
    expectOk<{ reauthenticated_until: string }>(
      await post('/user/reauth', token, { current_password: user.password }, version),
    ).reauthenticated_until;
  const login = async (user: RegisteredUser) =>
    expectOk<{ user: { api_token: string } }>(
      await postForm(ctx.app, '/v1/auth/login/email', { email: user.email, password: user.password }),
    ).user.api_token;
  /** The ends of the user's windows, as stored (null where none was opened). */
  const windowsOf = async (userId: string) => {
    const { rows } = await sql<{ until: Date | null }>`
      SELECT reauthenticated_until AS until FROM api_tokens WHERE user_id = ${userId} ORDER BY created_at`.execute(
      ctx.database.handle.db,
    );
    return rows.map((row) => row.until?.toISOString() ?? null);
  };

  it('opens ten minutes from the proof, in every API version', async () => {
    const user = await registerUser(ctx.app);
    const before = Date.now();
    const until = await reauth(user);
    const after = Date.now();
    // The database's clock against this process's: the same machine, so the same within a second.
    expect(Date.parse(until)).toBeGreaterThanOrEqual(before + TEN_MINUTES - 1000);
    expect(Date.parse(until)).toBeLessThanOrEqual(after + TEN_MINUTES + 1000);
    expect(await windowsOf(user.id)).toEqual([until]);
    expect(Date.parse(await reauth(user, user.token, 'dev'))).toBeGreaterThanOrEqual(Date.parse(until));
  });

  it('lets the password, the email, the second factor and the deletion through without a proof', async () => {
    const user = await registerUser(ctx.app);
    const until = await reauth(user);
    const password = `Another-Passphrase-${unique()}`;
    expectOk(await post('/user/update', user.token, { password }));
    expectOk(await postForm(ctx.app, '/v1/auth/login/email', { email: user.email, password }));
    const email = `moved${unique()}@example.com`;
    expect(
      expectOk<{ user: { email: string } }>(await post('/user/update', user.token, { email })).user.email,
    ).toBe(email);
    expectOk(await post('/user/2fa/totp/setup', user.token));
    // Use never extends the window (the sign-in above made a second token, without one).
    expect(await windowsOf(user.id)).toEqual([until, null]);
    expect(expectOk<{ deleted: boolean }>(await post('/user/delete', user.token)).deleted).toBe(false);
  });

  it('still checks a proof sent within the window, and never renews the window without one', async () => {
    const user = await registerUser(ctx.app);
    await reauth(user);
    expectValidationError(
      await post('/user/update', user.token, { password: `P-${unique()}-x`, current_password: 'wrong-one' }),
      PASSWORD_INCORRECT,
    );
    expectValidationError(await post('/user/reauth', user.token), PASSWORD_REQUIRED);
  });

  it('belongs to the one session: another token of the same user gets nothing', async () => {
    const user = await registerUser(ctx.app);
    const other = await login(user);
    await reauth(user);
    expectValidationError(
      await post('/user/update', other, { password: `P-${unique()}-x` }),
      PASSWORD_REQUIRED,
    );
    expectValidationError(await post('/user/2fa/totp/setup', other), PASSWORD_REQUIRED);
    expect((await windowsOf(user.id))[1]).toBeNull();
  });

  it('ends when its time is up: then every change asks for the proof again', async () => {
    const user = await registerUser(ctx.app);
    await reauth(user);
    // The clock is the database's: move the window's end into the past rather than wait.
    await sql`UPDATE api_tokens SET reauthenticated_until = now() - interval '1 second' WHERE user_id = ${user.id}`.execute(
      ctx.database.handle.db,
    );
    expectValidationError(
      await post('/user/update', user.token, { password: `P-${unique()}-x` }),
      PASSWORD_REQUIRED,
    );
    expectValidationError(await post('/user/delete', user.token), PASSWORD_REQUIRED);
  });

  it('opens nothing on a wrong or missing password: the 422 of every re-authenticated change', async () => {
    const user = await registerUser(ctx.app);
    expectValidationError(
      await post('/user/reauth', user.token, { current_password: 'wrong-one' }),
      PASSWORD_INCORRECT,
    );
    expectValidationError(await post('/user/reauth', user.token), PASSWORD_REQUIRED);
    expect(await windowsOf(user.id)).toEqual([null]);
    expectValidationError(
      await post('/user/update', user.token, { password: `P-${unique()}-x` }),
      PASSWORD_REQUIRED,
    );
  });

  it('ends with its token: a revoked session is signed out, window or not', async () => {
    const user = await registerUser(ctx.app);
    const other = await login(user);
    await reauth(user, other);
    const { tokens } = expectOk<{ tokens: { id: string; current: boolean }[] }>(
      await ctx.app.inject({ method: 'GET', url: '/v1/user/tokens', headers: bearer(other) }),
    );
    const current = tokens.find((token) => token.current)?.id as string;
    expectOk(await post(`/user/tokens/${current}/revoke`, user.token));
    expectError(await post('/user/update', other, { password: `P-${unique()}-x` }), 401, ...UNAUTHENTICATED);
    expectError(
      await post('/user/reauth', other, { current_password: user.password }),
      401,
      ...UNAUTHENTICATED,
    );
    expectValidationError(
      await post('/user/update', user.token, { password: `P-${unique()}-x` }),
      PASSWORD_REQUIRED,
    );
  });
});
