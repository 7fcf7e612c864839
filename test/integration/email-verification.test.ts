import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeProvider, startFakeProvider } from '../../src/dev/fake-provider.js';
import { closeTestApp, createTestApp, type TestApp, useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, registerUser, registrationForm, unique } from '../helpers/factories.js';
import { expectError, expectOk, expectValidationError, postForm, UNAUTHENTICATED } from '../helpers/http.js';
import { latestToken, outboxFor } from '../helpers/mail.js';
import { providerSignUp } from '../helpers/providers.js';

const VERIFY = '/v1/auth/email/verify';
const RESEND = '/v1/user/email/resend';
const INVALID_TOKEN = { token: ['The selected token is invalid.'] };

describe.each(backends)('%s: email verification (log transport)', (backend) => {
  const ctx = useTestApp(backend);

  const verificationToken = async (email: string) => {
    await ctx.mailer.idle();
    return latestToken(ctx.database.handle, email, 'email_verify');
  };
  const verify = (token: string) => postForm(ctx.app, VERIFY, { token });
  const me = async (apiToken: string) =>
    expectOk<{ user: { email: string; email_verified: boolean } }>(
      await ctx.app.inject({ method: 'GET', url: '/v1/user/get', headers: bearer(apiToken) }),
    ).user;
  const resend = (apiToken: string, headers: Record<string, string> = {}) =>
    postForm(ctx.app, RESEND, {}, { ...bearer(apiToken), ...headers });

  it('mails a link at sign-up; the link verifies the address once', async () => {
    const user = await registerUser(ctx.app);
    expect(user.user.email_verified).toBe(false);
    const token = await verificationToken(user.email);
    const [mail] = await outboxFor(ctx.database.handle, user.email);
    expect(mail).toMatchObject({
      kind: 'email_verify',
      status: 'sent',
      transport: 'log',
      locale: 'en',
      subject: 'Confirm your email address',
    });
    expect(mail?.text).toContain(`http://localhost:8080/verify-email?token=${token}`);
    expect(expectOk(await verify(token))).toEqual({ status: 'verified' });
    expect((await me(user.token)).email_verified).toBe(true);
    expectValidationError(await verify(token), INVALID_TOKEN);
  });

  it('writes the mail in the language the client prefers', async () => {
    const form = registrationForm();
    expectOk(
      await postForm(ctx.app, '/v1/auth/register', form, { 'accept-language': 'ko-KR,ko;q=0.9,en;q=0.5' }),
    );
    await ctx.mailer.idle();
    const [mail] = await outboxFor(ctx.database.handle, form.email);
    expect(mail).toMatchObject({ locale: 'ko', subject: '이메일 주소를 확인해 주세요' });
    expect(mail?.text).toContain(`${form.username}님, 안녕하세요.`);
  });

  it('refuses an expired token', async () => {
    const user = await registerUser(ctx.app);
    const token = await verificationToken(user.email);
    await sql`UPDATE one_time_tokens SET expires_at = now() - interval '1 second'
              WHERE user_id = ${user.id}`.execute(ctx.database.handle.db);
    expectValidationError(await verify(token), INVALID_TOKEN);
    expect((await me(user.token)).email_verified).toBe(false);
  });

  it('refuses unknown tokens and a missing one', async () => {
    expectValidationError(await verify('A'.repeat(43)), INVALID_TOKEN);
    expectValidationError(await postForm(ctx.app, VERIFY, {}), { token: ['The token field is required.'] });
  });

  it('resends a new link that replaces the old one, and says when there is nothing to verify', async () => {
    const user = await registerUser(ctx.app);
    const first = await verificationToken(user.email);
    expect(expectOk(await resend(user.token))).toEqual({ status: 'sent' });
    const second = await verificationToken(user.email);
    expect(second).not.toBe(first);
    expectValidationError(await verify(first), INVALID_TOKEN);
    expectOk(await verify(second));
    const before = (await outboxFor(ctx.database.handle, user.email)).length;
    expect(expectOk(await resend(user.token))).toEqual({ status: 'already_verified' });
    await ctx.mailer.idle();
    expect(await outboxFor(ctx.database.handle, user.email)).toHaveLength(before);
  });

  it('needs a signed-in user to resend', async () => {
    expectError(await postForm(ctx.app, RESEND, {}), 401, ...UNAUTHENTICATED);
  });

  it('mails the new address at an email change; the old link no longer verifies', async () => {
    const user = await registerUser(ctx.app);
    const oldToken = await verificationToken(user.email);
    const newEmail = `changed${unique()}@example.com`;
    const { user: updated } = expectOk<{ user: { email_verified: boolean } }>(
      await postForm(
        ctx.app,
        '/v1/user/update',
        { email: newEmail, current_password: user.password },
        bearer(user.token),
      ),
    );
    expect(updated.email_verified).toBe(false);
    const newToken = await verificationToken(newEmail);
    expectValidationError(await verify(oldToken), INVALID_TOKEN);
    expectOk(await verify(newToken));
    expect(await me(user.token)).toMatchObject({ email: newEmail, email_verified: true });
  });

  it('makes a verified address unverified again when it changes', async () => {
    const user = await registerUser(ctx.app);
    expectOk(await verify(await verificationToken(user.email)));
    const newEmail = `again${unique()}@example.com`;
    expectOk(
      await postForm(
        ctx.app,
        '/v1/user/update',
        { email: newEmail, current_password: user.password },
        bearer(user.token),
      ),
    );
    expect(await me(user.token)).toMatchObject({ email: newEmail, email_verified: false });
    // Changing the case of the same address is no change: still unverified, no new mail.
    const mails = (await outboxFor(ctx.database.handle, newEmail)).length;
    expectOk(
      await postForm(ctx.app, '/v1/user/update', { email: newEmail.toUpperCase() }, bearer(user.token)),
    );
    await ctx.mailer.idle();
    expect(await outboxFor(ctx.database.handle, newEmail)).toHaveLength(mails);
  });

  it('does not verify a token mailed for an address the account no longer has', async () => {
    const user = await registerUser(ctx.app);
    const token = await verificationToken(user.email);
    // Even with the token row left in place, the address it was mailed to is what counts.
    await sql`UPDATE users SET email = ${`elsewhere${unique()}@example.com`} WHERE id = ${user.id}`.execute(
      ctx.database.handle.db,
    );
    expectValidationError(await verify(token), INVALID_TOKEN);
  });
});

describe.each(backends)('%s: sign-up through a provider that vouches for the email', (backend) => {
  let fake: FakeProvider;
  let ctx: TestApp;

  beforeAll(async () => {
    fake = await startFakeProvider({ clientId: 'accounts-test' });
    ctx = await createTestApp(backend, { ...fake.env('alpha', 'userinfo'), ...fake.env('beta', 'id-token') });
  });
  afterAll(async () => {
    if (ctx) await closeTestApp(ctx);
    if (fake) await fake.close();
  });

  async function betaSignUp(claims: { email?: string; emailVerified?: boolean }, email?: string) {
    const id = `beta-${unique()}`;
    const fields = providerSignUp('beta', id, 'placeholder', email ? { email } : {});
    fields.beta_access_token = await fake.issueIdToken(id, {
      ...claims,
      ...(claims.email === '' ? { email: fields.email } : {}),
    });
    const { user } = expectOk<{ user: { email_verified: boolean } }>(
      await postForm(ctx.app, '/v1/auth/register', fields),
    );
    await ctx.mailer.idle();
    return { user, mails: await outboxFor(ctx.database.handle, fields.email) };
  }

  it('is verified without mail when the ID token asserts email_verified for the same address', async () => {
    const email = `Vouched${unique()}@Example.com`;
    const { user, mails } = await betaSignUp({ email: email.toLowerCase(), emailVerified: true }, email);
    expect(user.email_verified).toBe(true);
    expect(mails).toEqual([]);
  });

  it('is not verified, and gets a mail, when the claim is false, absent, or for another address', async () => {
    for (const claims of [
      { email: '', emailVerified: false },
      { email: '' },
      { email: `someone-else${unique()}@example.com`, emailVerified: true },
    ]) {
      const { user, mails } = await betaSignUp(claims);
      expect(user.email_verified).toBe(false);
      expect(mails.map((mail) => mail.kind)).toEqual(['email_verify']);
    }
  });

  it('is not verified through a userinfo provider (no email claim is trusted from it)', async () => {
    const id = `alpha-${unique()}`;
    const fields = providerSignUp('alpha', id, fake.issueAccessToken(id));
    const { user } = expectOk<{ user: { email_verified: boolean } }>(
      await postForm(ctx.app, '/v1/auth/register', fields),
    );
    expect(user.email_verified).toBe(false);
  });
});
