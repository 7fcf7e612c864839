import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, registerUser, unique } from '../helpers/factories.js';
import { expectError, expectOk, expectValidationError, postForm, UNAUTHENTICATED } from '../helpers/http.js';
import { latestToken, outboxFor } from '../helpers/mail.js';
import { expectAuthenticationFailed } from '../helpers/providers.js';

const FORGOT = '/v1/auth/password/forgot';
const RESET = '/v1/auth/password/reset';
const INVALID_TOKEN = { token: ['The selected token is invalid.'] };

type SignedIn = {
  user: Record<string, unknown> & { id: string; api_token: string; email_verified: boolean };
};

describe.each(backends)('%s: password reset (log transport)', (backend) => {
  const ctx = useTestApp(backend);

  /** Asks for a reset link and returns the token the mail carries (read from the outbox). */
  async function forgot(email: string): Promise<string> {
    expect(expectOk(await postForm(ctx.app, FORGOT, { email }))).toEqual({ status: 'sent' });
    await ctx.mailer.idle();
    return latestToken(ctx.database.handle, email, 'password_reset');
  }

  const reset = (token: string, password: string, headers: Record<string, string> = {}) =>
    postForm(ctx.app, RESET, { token, password }, headers);

  const getUser = (token: string) =>
    ctx.app.inject({ method: 'GET', url: '/v1/user/get', headers: bearer(token) });

  const login = (email: string, password: string) =>
    postForm(ctx.app, '/v1/auth/login/email', { email, password });

  it('mails a link; the link sets a new password, verifies the email and signs in', async () => {
    const me = await registerUser(ctx.app);
    const token = await forgot(me.email);
    const [mail] = (await outboxFor(ctx.database.handle, me.email)).filter(
      (row) => row.kind === 'password_reset',
    );
    expect(mail).toMatchObject({
      kind: 'password_reset',
      status: 'sent',
      transport: 'log',
      attempts: 1,
      locale: 'en',
      subject: 'Reset your password',
    });
    expect(mail?.text).toContain(`http://localhost:8080/reset-password?token=${token}`);

    const newPassword = `Brand-New-Harbour-${unique()}`;
    const signedIn = expectOk<SignedIn>(await reset(token, newPassword));
    expect(signedIn.user).toMatchObject({ id: me.id, email: me.email, email_verified: true });
    const { api_token: apiToken, ...view } = signedIn.user;
    expect(apiToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Answers like login: the user's own view, as user/get shows it, plus the new token.
    expect(expectOk<{ user: unknown }>(await getUser(apiToken)).user).toEqual({
      ...view,
      pending_consents: [],
    });
    expectOk(await login(me.email, newPassword));
    expectAuthenticationFailed(await login(me.email, me.password));
  });

  it('answers an unknown email exactly as a known one, and writes no mail', async () => {
    const known = await registerUser(ctx.app);
    const unknown = `nobody${unique()}@example.com`;
    const a = await postForm(ctx.app, FORGOT, { email: known.email });
    const b = await postForm(ctx.app, FORGOT, { email: unknown });
    expect(b.statusCode).toBe(a.statusCode);
    expect(b.body).toBe(a.body);
    expect(b.headers['content-type']).toBe(a.headers['content-type']);
    await ctx.mailer.idle();
    expect(await outboxFor(ctx.database.handle, unknown)).toEqual([]);
  });

  it('mails the address on the account even when the request spells it in other case', async () => {
    const me = await registerUser(ctx.app);
    expectOk(await postForm(ctx.app, FORGOT, { email: me.email.toUpperCase() }));
    await ctx.mailer.idle();
    const rows = (await outboxFor(ctx.database.handle, me.email)).filter((r) => r.kind === 'password_reset');
    expect(rows.map((row) => row.to_address)).toEqual([me.email]);
  });

  it('uses a token once', async () => {
    const me = await registerUser(ctx.app);
    const token = await forgot(me.email);
    expectOk(await reset(token, `First-Choice-${unique()}`));
    expectValidationError(await reset(token, `Second-Choice-${unique()}`), INVALID_TOKEN);
  });

  it('refuses an expired token', async () => {
    const me = await registerUser(ctx.app);
    const token = await forgot(me.email);
    await sql`UPDATE one_time_tokens SET expires_at = now() - interval '1 second'
              WHERE user_id = ${me.id} AND purpose = 'password_reset'`.execute(ctx.database.handle.db);
    expectValidationError(await reset(token, `Too-Late-${unique()}`), INVALID_TOKEN);
    expect((await login(me.email, me.password)).statusCode).toBe(200);
  });

  it('refuses unknown and malformed tokens, in Korean too', async () => {
    expectValidationError(await reset('x'.repeat(43), `Anything-Goes-${unique()}`), INVALID_TOKEN);
    expectValidationError(
      await reset('not a token', `Anything-Goes-${unique()}`, { 'accept-language': 'ko' }),
      {
        token: ['선택된 토큰은 유효하지 않습니다.'],
      },
    );
  });

  it('a second request makes the first link stop working', async () => {
    const me = await registerUser(ctx.app);
    const first = await forgot(me.email);
    const second = await forgot(me.email);
    expect(second).not.toBe(first);
    expectValidationError(await reset(first, `Old-Link-${unique()}`), INVALID_TOKEN);
    expectOk(await reset(second, `New-Link-${unique()}`));
  });

  it('revokes every token of the account', async () => {
    const me = await registerUser(ctx.app);
    const sessions = [me.token];
    for (let i = 0; i < 2; i++) {
      sessions.push(expectOk<SignedIn>(await login(me.email, me.password)).user.api_token);
    }
    for (const session of sessions) expectOk(await getUser(session));
    const token = await forgot(me.email);
    const { user } = expectOk<SignedIn>(await reset(token, `Fresh-Start-${unique()}`));
    for (const session of sessions) expectError(await getUser(session), 401, ...UNAUTHENTICATED);
    expectOk(await getUser(user.api_token));
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM api_tokens
                                             WHERE user_id = ${me.id}`.execute(ctx.database.handle.db);
    expect(rows[0]?.n).toBe(1);
  });

  it('lets exactly one of 20 concurrent resets with one token through', async () => {
    const me = await registerUser(ctx.app);
    const token = await forgot(me.email);
    const passwords = Array.from({ length: 20 }, (_, i) => `Racing-Password-${i}-${unique()}`);
    const responses = await Promise.all(passwords.map((password) => reset(token, password)));
    const winners = responses.filter((res) => res.statusCode === 200);
    expect(winners).toHaveLength(1);
    for (const res of responses.filter((r) => r.statusCode !== 200))
      expectValidationError(res, INVALID_TOKEN);
    // The password that won is the one stored, and only the winner's session exists.
    const winner = passwords[responses.indexOf(winners[0] as (typeof responses)[number])] as string;
    expectOk(await login(me.email, winner));
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM api_tokens
                                             WHERE user_id = ${me.id}`.execute(ctx.database.handle.db);
    expect(rows[0]?.n).toBe(2);
  });

  it('applies the register password rules, and a refused password leaves the token usable', async () => {
    const me = await registerUser(ctx.app);
    const token = await forgot(me.email);
    expectValidationError(await reset(token, 'short'), {
      password: ['The password must be at least 8 characters.'],
    });
    expectValidationError(await reset(token, 'password123'), { password: ['The password is too common.'] });
    // Equal to the account's own email local part (the request names no email: the account's is used).
    expectValidationError(await reset(token, me.email.split('@')[0] as string), {
      password: ['The password is too common.'],
    });
    expectValidationError(await postForm(ctx.app, RESET, {}), {
      token: ['The token field is required.'],
      password: ['The password field is required.'],
    });
    expectOk(await reset(token, `Finally-Good-${unique()}`));
  });

  it('checks the email of forgot by format only', async () => {
    expectValidationError(await postForm(ctx.app, FORGOT, {}), { email: ['The email field is required.'] });
    expectValidationError(await postForm(ctx.app, FORGOT, { email: 'not-an-email' }), {
      email: ['The email must be a valid email address.'],
    });
  });

  it('refuses a link mailed to an address the account no longer has', async () => {
    const me = await registerUser(ctx.app);
    const token = await forgot(me.email);
    expectOk(
      await postForm(
        ctx.app,
        '/v1/user/update',
        { email: `moved${unique()}@example.com`, current_password: me.password },
        bearer(me.token),
      ),
    );
    expectValidationError(await reset(token, `Stolen-Mailbox-${unique()}`), INVALID_TOKEN);
  });
});
