import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { accountEventsOf } from '../helpers/account-events.js';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { codeMails, EMAIL_CODE, EMAIL_CODE_VERIFY, mailedCode } from '../helpers/email-code.js';
import { bearer, registerUser, unique } from '../helpers/factories.js';
import { expectError, expectOk, expectValidationError, postForm } from '../helpers/http.js';
import { expectAuthenticationFailed } from '../helpers/providers.js';
import { enableTotp, expectSecondFactorRequired } from '../helpers/second-factor.js';
import { eventsOf } from '../helpers/security-events.js';

type SignedIn = { user: Record<string, unknown> & { id: string; api_token: string } };

/** Limits on, as in production, with room for a file's many requests from one address. */
const LIMITS = {
  RATE_LIMIT_ENABLED: 'true',
  RATE_LIMIT_REGISTER_IP: '1000/1h',
  RATE_LIMIT_LOGIN_IP: '1000/1h',
  RATE_LIMIT_EMAIL_CODE_IP: '1000/1h',
  RATE_LIMIT_EMAIL_CODE_EMAIL: '3/1h',
  RATE_LIMIT_LOGIN_FAILURES: '7/15m',
  RATE_LIMIT_MAIL_ADDRESS: '100/1h',
};

describe.each(backends)('%s: sign-in by a code mailed to the address', (backend) => {
  const ctx = useTestApp(backend, LIMITS);
  const verify = (fields: Record<string, string>) => postForm(ctx.app, EMAIL_CODE_VERIFY, fields);
  const getUser = (token: string) =>
    ctx.app.inject({ method: 'GET', url: '/v1/user/get', headers: bearer(token) });
  const wrongCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

  it('mails a code and a link; the code signs in once, as login answers', async () => {
    const me = await registerUser(ctx.app);
    const { code } = await mailedCode(ctx, me.email);
    const [mail] = await codeMails(ctx, me.email);
    expect(mail).toMatchObject({
      kind: 'email_code',
      status: 'sent',
      locale: 'en',
      subject: `${code} is your code`,
    });
    expect(mail?.text).toMatch(/^http:\/\/localhost:8080\/login\?token=[A-Za-z0-9_-]{43}$/m);

    const signedIn = expectOk<SignedIn>(await verify({ email: me.email.toUpperCase(), code }));
    const { api_token: apiToken, ...view } = signedIn.user;
    expect(view).toMatchObject({ id: me.id, email: me.email, email_verified: true });
    expect(expectOk<{ user: unknown }>(await getUser(apiToken)).user).toEqual({
      ...view,
      pending_consents: [],
    });
    // Single use.
    expectAuthenticationFailed(await verify({ email: me.email, code }));

    const sessions = (await accountEventsOf(ctx.database.handle, me.id)).filter(
      (event) => event.type === 'session.created',
    );
    expect(sessions.at(-1)?.data).toMatchObject({ user_id: me.id, method: 'email_code' });
    const activity = await eventsOf(ctx.database.handle, me.id);
    expect(activity.filter((event) => event.type === 'sign_in').at(-1)?.details).toMatchObject({
      method: 'email_code',
    });
  });

  it("signs in once with the link's token, and the code of the same mail is used up with it", async () => {
    const me = await registerUser(ctx.app);
    const { code, token } = await mailedCode(ctx, me.email);
    expect(expectOk<SignedIn>(await verify({ token })).user.id).toBe(me.id);
    expectAuthenticationFailed(await verify({ token }));
    expectAuthenticationFailed(await verify({ email: me.email, code }));
    expectAuthenticationFailed(await verify({ token: 'x'.repeat(43) }));
  });

  it('answers an unknown address exactly as a known one, and mails it nothing', async () => {
    const known = await registerUser(ctx.app);
    const unknown = `nobody${unique()}@example.com`;
    const a = await postForm(ctx.app, EMAIL_CODE, { email: known.email, purpose: 'login' });
    const b = await postForm(ctx.app, EMAIL_CODE, { email: unknown, purpose: 'login' });
    expect(b.statusCode).toBe(a.statusCode);
    expect(b.body).toBe(a.body);
    expect(b.headers['content-type']).toBe(a.headers['content-type']);
    expect(await codeMails(ctx, unknown)).toEqual([]);
    expect(await codeMails(ctx, known.email)).toHaveLength(1);
    // A sign-up code to an address that has an account: the same answer, no mail.
    const c = await postForm(ctx.app, EMAIL_CODE, { email: known.email, purpose: 'register' });
    expect(c.body).toBe(a.body);
    expect(await codeMails(ctx, known.email)).toHaveLength(1);
    expectAuthenticationFailed(await verify({ email: unknown, code: '123456' }));
  });

  it('ends a code at its fifth wrong guess; each wrong one is a counted failed sign-in', async () => {
    const me = await registerUser(ctx.app);
    const { code } = await mailedCode(ctx, me.email);
    for (let i = 0; i < 5; i++)
      expectAuthenticationFailed(await verify({ email: me.email, code: wrongCode(code) }));
    expectAuthenticationFailed(await verify({ email: me.email, code }));
    const failed = (await eventsOf(ctx.database.handle, me.id)).filter(
      (event) => event.type === 'sign_in_failed',
    );
    expect(failed).toHaveLength(1);
    expect(failed[0]?.details).toMatchObject({ method: 'email_code', count: 6 });
    // The login's failure counter (7 per address and IP) counted them all: the next guess is a 429.
    const { code: fresh } = await mailedCode(ctx, me.email);
    expectAuthenticationFailed(await verify({ email: me.email, code: wrongCode(fresh) }));
    const limited = await verify({ email: me.email, code: fresh });
    expect(limited.statusCode).toBe(429);
    expect(limited.json().meta.error_type).toBe('TooManyRequestsHttpException');
  });

  it('refuses an expired code, and a new code ends the one before', async () => {
    const me = await registerUser(ctx.app);
    const first = await mailedCode(ctx, me.email);
    const second = await mailedCode(ctx, me.email);
    expectAuthenticationFailed(
      await verify({
        email: me.email,
        code: first.code === second.code ? wrongCode(second.code) : first.code,
      }),
    );
    await sql`UPDATE one_time_codes SET expires_at = now() - interval '1 second' WHERE address = ${me.email.toLowerCase()}`.execute(
      ctx.database.handle.db,
    );
    expectAuthenticationFailed(await verify({ email: me.email, code: second.code }));
    expectAuthenticationFailed(await verify({ token: second.token }));
  });

  it('counts asks per address, known or not, with the same 429', async () => {
    const known = await registerUser(ctx.app);
    const unknown = `nobody${unique()}@example.com`;
    for (const email of [known.email, unknown]) {
      for (let i = 0; i < 3; i++) expectOk(await postForm(ctx.app, EMAIL_CODE, { email, purpose: 'login' }));
    }
    const a = await postForm(ctx.app, EMAIL_CODE, { email: known.email, purpose: 'login' });
    const b = await postForm(ctx.app, EMAIL_CODE, { email: unknown, purpose: 'login' });
    expect(a.statusCode).toBe(429);
    expect(b.statusCode).toBe(429);
    expect(b.json()).toEqual(a.json());
  });

  it('asks for the second factor of an account that has one', async () => {
    const me = await enableTotp(ctx.app, await registerUser(ctx.app));
    const { code } = await mailedCode(ctx, me.email);
    expectSecondFactorRequired(await verify({ email: me.email, code }));
    // The code is used up all the same: the challenge is what goes on.
    expectAuthenticationFailed(await verify({ email: me.email, code }));
  });

  it('answers a disabled account and one scheduled for deletion as the password login does', async () => {
    const db = ctx.database.handle.db;
    const disabled = await registerUser(ctx.app);
    await db.updateTable('users').set({ disabled_at: new Date() }).where('id', '=', disabled.id).execute();
    const one = await mailedCode(ctx, disabled.email);
    expectError(
      await verify({ email: disabled.email, code: one.code }),
      401,
      'Unauthorized',
      'This account is disabled.',
      {
        status: 'account_disabled',
      },
    );
    const leaving = await registerUser(ctx.app);
    const due = new Date(Date.now() + 86_400_000);
    await db
      .updateTable('users')
      .set({ deletion_due_at: due, deletion_scheduled_at: new Date() })
      .where('id', '=', leaving.id)
      .execute();
    const two = await mailedCode(ctx, leaving.email);
    expectError(
      await verify({ token: two.token }),
      409,
      'ConflictHttpException',
      'This account is scheduled for deletion.',
      {
        status: 'deletion_scheduled',
        scheduled_for: due.toISOString(),
      },
    );
  });

  it('makes exactly one session of one code verified twice at once', async () => {
    const me = await registerUser(ctx.app);
    const { code } = await mailedCode(ctx, me.email);
    const answers = await Promise.all([verify({ email: me.email, code }), verify({ email: me.email, code })]);
    expect(answers.map((res) => res.statusCode).sort()).toEqual([200, 401]);
    const { count } = await ctx.database.handle.db
      .selectFrom('api_tokens')
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .where('user_id', '=', me.id)
      .executeTakeFirstOrThrow();
    expect(Number(count)).toBe(2);
  });

  it('names every field a request gets wrong', async () => {
    expectValidationError(await postForm(ctx.app, EMAIL_CODE, {}), {
      email: ['The email field is required.'],
      purpose: ['The purpose field is required.'],
    });
    expectValidationError(await postForm(ctx.app, EMAIL_CODE, { email: 'not-an-email', purpose: 'signup' }), {
      email: ['The email must be a valid email address.'],
      purpose: ['The selected purpose is invalid.'],
    });
    expectValidationError(await verify({}), {
      email: ['The email field is required.'],
      code: ['The code field is required.'],
    });
    expectValidationError(await verify({ email: 'a@example.com' }), {
      code: ['The code field is required.'],
    });
    expectValidationError(await verify({ email: 'nope', code: '12345' }), {
      email: ['The email must be a valid email address.'],
      code: ['The code format is invalid.'],
    });
    expectValidationError(await verify({ token: 'x'.repeat(513) }), {
      token: ['The token may not be greater than 512 characters.'],
    });
  });
});
