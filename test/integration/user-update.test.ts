import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, registerUser, unique } from '../helpers/factories.js';
import { expectError, expectOk, expectValidationError, postForm, UNAUTHENTICATED } from '../helpers/http.js';

describe.each(backends)('%s: POST user/update', (backend) => {
  const ctx = useTestApp(backend);

  const update = (
    token: string | undefined,
    body: Record<string, string>,
    headers: Record<string, string> = {},
  ) => postForm(ctx.app, '/v1/user/update', body, { ...(token ? bearer(token) : {}), ...headers });

  const getUser = async (token: string) =>
    expectOk<{ user: Record<string, unknown> }>(
      await ctx.app.inject({ method: 'GET', url: '/v1/user/get', headers: bearer(token) }),
    ).user;

  it('changes every profile field and returns the whole user', async () => {
    const me = await registerUser(ctx.app);
    const id = unique();
    const res = await update(me.token, {
      username: `새이름${id}`,
      slug: `new-slug-${id}`,
      gender: '0',
      bio: '안녕하세요, I take photos.',
      email: `New.Address${id}@Example.com`,
      current_password: me.password,
    });
    const data = expectOk<{ user: Record<string, unknown> }>(res);
    expect(data).toEqual({
      user: {
        id: me.id,
        email: `New.Address${id}@Example.com`,
        username: `새이름${id}`,
        slug: `new-slug-${id}`,
        gender: 0,
        bio: '안녕하세요, I take photos.',
        profile_picture: null,
        providers: [],
        has_password: true,
        // A new address is unproven until its verification link is followed.
        email_verified: false,
        phone: null,
        phone_verified: false,
        identity_verified: false,
        adult: null,
        is_inspirer: false,
        created_at: me.user.created_at,
        updated_at: expect.any(String),
        guardian_consent: null,
        restrictions: [],
      },
    });
    expect(await getUser(me.token)).toEqual({ ...data.user, pending_consents: [] });
  });

  it('leaves out fields that are not sent, and accepts an empty update', async () => {
    const me = await registerUser(ctx.app);
    expectOk(await update(me.token, { bio: 'first' }));
    const user = expectOk<{ user: Record<string, unknown> }>(await update(me.token, {})).user;
    expect(user).toMatchObject({ bio: 'first', username: me.username, email: me.email, slug: me.slug });
  });

  it("allows renaming to the user's own name, slug and email in another case", async () => {
    const me = await registerUser(ctx.app);
    const user = expectOk<{ user: Record<string, unknown> }>(
      await update(me.token, {
        username: me.username.toUpperCase(),
        slug: me.slug.toUpperCase(),
        email: me.email.toUpperCase(),
      }),
    ).user;
    expect(user).toMatchObject({
      username: me.username.toUpperCase(),
      slug: me.slug.toUpperCase(),
      email: me.email.toUpperCase(),
    });
  });

  it("refuses another user's username, slug and email, in any case", async () => {
    const me = await registerUser(ctx.app);
    const other = await registerUser(ctx.app);
    const res = await update(me.token, {
      username: other.username.toUpperCase(),
      slug: other.slug.toUpperCase(),
      email: other.email.toUpperCase(),
    });
    expectValidationError(res, {
      username: ['The username has already been taken.'],
      slug: ['The slug has already been taken.'],
      email: ['The email has already been taken.'],
    });
    expect(await getUser(me.token)).toMatchObject({ username: me.username, email: me.email });
  });

  it('reports every failing rule with the registration messages', async () => {
    const me = await registerUser(ctx.app);
    const res = await update(me.token, {
      username: 'a:b',
      slug: 'abc',
      gender: '2',
      bio: 'x'.repeat(501),
      email: 'not-an-email',
      password: 'short',
    });
    expectValidationError(res, {
      username: ['The username format is invalid.'],
      slug: ['The slug must be at least 4 characters.'],
      gender: ['The selected gender is invalid.'],
      bio: ['The bio may not be greater than 500 characters.'],
      email: ['The email must be a valid email address.'],
      password: ['The password must be at least 8 characters.'],
    });
  });

  it('counts a 500-character Korean bio as 500 characters', async () => {
    const me = await registerUser(ctx.app);
    expectOk(await update(me.token, { bio: '가'.repeat(500) }));
    expectValidationError(await update(me.token, { bio: '가'.repeat(501) }), {
      bio: ['The bio may not be greater than 500 characters.'],
    });
  });

  it('refuses values of the wrong shape, too long ones and a non-integer gender', async () => {
    const me = await registerUser(ctx.app);
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/v1/user/update',
      headers: { 'content-type': 'application/json', ...bearer(me.token) },
      payload: JSON.stringify({
        username: ['a'],
        slug: `s${'a'.repeat(256)}`,
        gender: 'male',
        email: `${'a'.repeat(250)}@example.com`,
        bio: { a: 1 },
      }),
    });
    expectValidationError(res, {
      username: ['The username must be a string.'],
      slug: ['The slug may not be greater than 256 characters.'],
      gender: ['The gender must be an integer.'],
      email: ['The email may not be greater than 255 characters.'],
      bio: ['The bio must be a string.'],
    });
  });

  it('answers in Korean when the client prefers it', async () => {
    const me = await registerUser(ctx.app);
    expectValidationError(
      await update(me.token, { bio: 'x'.repeat(501) }, { 'accept-language': 'ko-KR,ko;q=0.9' }),
      {
        bio: ['자기소개는 500자보다 길 수 없습니다.'],
      },
    );
  });

  describe('password', () => {
    it('needs the current password when the user has one', async () => {
      const me = await registerUser(ctx.app);
      expectValidationError(await update(me.token, { password: 'A-brand-new-passphrase' }), {
        current_password: ['The current password field is required.'],
      });
      expectValidationError(
        await update(me.token, { password: 'A-brand-new-passphrase', current_password: 'wrong-password' }),
        { current_password: ['The current password is incorrect.'] },
      );
    });

    it('refuses common passwords and ones equal to the stored username or email', async () => {
      const me = await registerUser(ctx.app);
      const common = { password: 'password123', current_password: me.password };
      expectValidationError(await update(me.token, common), { password: ['The password is too common.'] });
      // Neither the username nor the email is sent: the stored ones count.
      expectValidationError(
        await update(me.token, { password: me.username, current_password: me.password }),
        {
          password: ['The password is too common.'],
        },
      );
      expectValidationError(
        await update(me.token, { password: me.email.split('@')[0] as string, current_password: me.password }),
        { password: ['The password is too common.'] },
      );
    });

    it('changes the password and signs out every other session, keeping this one', async () => {
      const me = await registerUser(ctx.app);
      const otherSession = expectOk<{ user: { api_token: string } }>(
        await postForm(ctx.app, '/v1/auth/login/email', { email: me.email, password: me.password }),
      ).user.api_token;
      const stranger = await registerUser(ctx.app);
      const newPassword = `Another-Sturdy-Passphrase-${unique()}`;

      expectOk(await update(me.token, { password: newPassword, current_password: me.password }));

      expectError(
        await ctx.app.inject({ method: 'GET', url: '/v1/user/get', headers: bearer(otherSession) }),
        401,
        ...UNAUTHENTICATED,
      );
      expect(await getUser(me.token)).toMatchObject({ id: me.id });
      // Another user's sessions are untouched.
      expect(await getUser(stranger.token)).toMatchObject({ id: stranger.id });
      expectError(
        await postForm(ctx.app, '/v1/auth/login/email', { email: me.email, password: me.password }),
        401,
        'Unauthorized',
        'The login credentials are invalid.',
        { status: 'authentication_failed' },
      );
      expectOk(await postForm(ctx.app, '/v1/auth/login/email', { email: me.email, password: newPassword }));
    });

    it('refuses a first password on a password-less account without any proof (the session is not one)', async () => {
      const me = await registerUser(ctx.app);
      await sql`UPDATE users SET password_hash = NULL WHERE id = ${me.id}`.execute(ctx.database.handle.db);
      const newPassword = `Provider-User-Passphrase-${unique()}`;
      // No provider is configured here, so no proof exists but the password the account does not have.
      expectValidationError(await update(me.token, { password: newPassword }), {
        current_password: ['The current password field is required.'],
      });
      expect((await getUser(me.token)).has_password).toBe(false);
    });
  });

  describe('authentication', () => {
    it('is a 401 without a token, with an unknown one and with a revoked one', async () => {
      const me = await registerUser(ctx.app);
      expectError(await update(undefined, { bio: 'x' }), 401, ...UNAUTHENTICATED);
      expectError(await update('not-a-real-token', { bio: 'x' }), 401, ...UNAUTHENTICATED);
      expectOk(await postForm(ctx.app, '/v1/auth/logout', {}, bearer(me.token)));
      expectError(await update(me.token, { bio: 'x' }), 401, ...UNAUTHENTICATED);
    });

    it("changes only the token owner's account, whatever ids the body names", async () => {
      const me = await registerUser(ctx.app);
      const other = await registerUser(ctx.app);
      const user = expectOk<{ user: { id: string; bio: string } }>(
        await update(me.token, { id: other.id, user_id: other.id, bio: 'mine' }),
      ).user;
      expect(user).toMatchObject({ id: me.id, bio: 'mine' });
      expect(await getUser(other.token)).toMatchObject({ id: other.id, bio: null });
    });
  });

  it('clears the bio when it is sent empty or null, and keeps it when it is left out', async () => {
    const me = await registerUser(ctx.app);
    expectOk(await update(me.token, { bio: 'to be removed' }));
    expect(
      expectOk<{ user: { bio: string | null } }>(await update(me.token, { bio: '' })).user.bio,
    ).toBeNull();
    expectOk(await update(me.token, { bio: 'again' }));
    const json = await ctx.app.inject({
      method: 'POST',
      url: '/v1/user/update',
      headers: { ...bearer(me.token), 'content-type': 'application/json' },
      payload: JSON.stringify({ bio: null }),
    });
    expect(expectOk<{ user: { bio: string | null } }>(json).user.bio).toBeNull();
    expectOk(await update(me.token, { bio: 'kept' }));
    expect(expectOk<{ user: { bio: string | null } }>(await update(me.token, { gender: '0' })).user.bio).toBe(
      'kept',
    );
  });

  it('refuses a NUL character in free text with a 422 on the field, not a failed commit', async () => {
    const me = await registerUser(ctx.app);
    expectValidationError(await update(me.token, { bio: 'ab\u0000cd' }), {
      bio: ['The bio format is invalid.'],
    });
  });

  it('still requires what is required when it is sent empty (empty is absent, not a value)', async () => {
    const me = await registerUser(ctx.app);
    expectValidationError(await update(me.token, { password: 'A-New-Passphrase-1', current_password: '' }), {
      current_password: ['The current password field is required.'],
    });
  });

  it('needs the current password to change the email, and refuses a wrong one', async () => {
    const me = await registerUser(ctx.app);
    const email = `moved${unique()}@example.com`;
    expectValidationError(await update(me.token, { email }), {
      current_password: ['The current password field is required.'],
    });
    expectValidationError(await update(me.token, { email, current_password: 'Not-The-Password-1' }), {
      current_password: ['The current password is incorrect.'],
    });
    expect((await getUser(me.token)).email).toBe(me.email);
    // The same address in another case is no change, so no password is asked for.
    expectOk(await update(me.token, { email: me.email.toUpperCase() }));
    expect(
      expectOk<{ user: { email: string } }>(await update(me.token, { email, current_password: me.password }))
        .user.email,
    ).toBe(email);
  });
});
