import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { registrationForm as form, registerUser, unique } from '../helpers/factories.js';
import { expectValidationError, postForm, postJson } from '../helpers/http.js';

const URL = '/v1/auth/register';

describe.each(backends)('%s: POST /{v}/auth/register answers 422', (backend) => {
  const ctx = useTestApp(backend);

  it('reports every missing required field together', async () => {
    expectValidationError(await postForm(ctx.app, URL, {}), {
      type: ['The type field is required.'],
      email: ['The email field is required.'],
      username: ['The username field is required.'],
      gender: ['The gender field is required.'],
      user_agreement: ['The user agreement field is required.'],
    });
  });

  it('requires a password when the type is email', async () => {
    expectValidationError(await postForm(ctx.app, URL, form({ password: undefined })), {
      password: ['The password field is required when type is email.'],
    });
  });

  it.each([
    ['facebook', { type: ['The selected type is invalid.'] }],
    ['EMAIL', { type: ['The selected type is invalid.'] }],
    [
      'alpha',
      {
        type: ['The selected type is invalid.'],
        alpha_user_id: ['The alpha user id field is required when type is alpha.'],
        alpha_access_token: ['The alpha access token field is required when type is alpha.'],
      },
    ],
    [
      'beta',
      {
        type: ['The selected type is invalid.'],
        beta_user_id: ['The beta user id field is required when type is beta.'],
        beta_access_token: ['The beta access token field is required when type is beta.'],
      },
    ],
  ])('refuses type=%j while no provider is configured', async (type, data) => {
    expectValidationError(await postForm(ctx.app, URL, form({ type })), data);
  });

  it.each([
    ['2', 'The selected gender is invalid.'],
    ['-1', 'The selected gender is invalid.'],
    ['male', 'The gender must be an integer.'],
    ['1.0', 'The gender must be an integer.'],
  ])('refuses gender=%j', async (gender, message) => {
    expectValidationError(await postForm(ctx.app, URL, form({ gender })), { gender: [message] });
  });

  it.each(['off', 'no', '0', 'false', 'agree'])('refuses user_agreement=%j', async (value) => {
    expectValidationError(await postForm(ctx.app, URL, form({ user_agreement: value })), {
      user_agreement: ['The user agreement must be accepted.'],
    });
  });

  it.each([
    ['7 characters', 'Zq8#vL2', 'The password must be at least 8 characters.'],
    [
      '1025 characters',
      `Zq8#${'vL2m'.repeat(255)}x`,
      'The password may not be greater than 1024 characters.',
    ],
    ['a common password', 'password', 'The password is too common.'],
    ['a common password in capitals', 'QWERTYUIOP', 'The password is too common.'],
  ])('refuses a password of %s', async (_why, password, message) => {
    expectValidationError(await postForm(ctx.app, URL, form({ password })), { password: [message] });
  });

  it('refuses a password equal to the username or to the email or its local part', async () => {
    const id = unique();
    const email = `local${id}@example.com`;
    const username = `user${id}`;
    for (const password of [username, username.toUpperCase(), `local${id}`, email]) {
      expectValidationError(await postForm(ctx.app, URL, form({ email, username, password })), {
        password: ['The password is too common.'],
      });
    }
  });

  it('refuses malformed email, username and slug together', async () => {
    expectValidationError(
      await postForm(ctx.app, URL, form({ email: 'nope', username: 'x', slug: 'my.slug' })),
      {
        email: ['The email must be a valid email address.'],
        username: ['The username format is invalid.'],
        slug: ['The slug format is invalid.'],
      },
    );
  });

  it('refuses an email, username and slug that are taken, whatever their case', async () => {
    const holder = await registerUser(ctx.app, { slug: `holder-${unique()}` });
    expectValidationError(
      await postForm(
        ctx.app,
        URL,
        form({
          email: holder.email.toUpperCase(),
          username: holder.username.toUpperCase(),
          slug: holder.slug.toUpperCase(),
        }),
      ),
      {
        email: ['The email has already been taken.'],
        username: ['The username has already been taken.'],
        slug: ['The slug has already been taken.'],
      },
    );
  });

  it('refuses values of the wrong shape as a 422, never a 500', async () => {
    const res = await postJson(ctx.app, URL, {
      type: ['email'],
      email: { a: 1 },
      username: 12,
      gender: '1; DROP TABLE users',
      user_agreement: 'maybe',
      password: ['x'],
      slug: true,
    });
    expectValidationError(res, {
      type: ['The type must be a string.'],
      email: ['The email must be a string.'],
      username: ['The username must be a string.'],
      gender: ['The gender must be an integer.'],
      user_agreement: ['The user agreement must be accepted.'],
      password: ['The password must be a string.'],
      slug: ['The slug must be a string.'],
    });
  });

  it('answers in Korean when the client prefers it', async () => {
    const res = await postForm(ctx.app, URL, form({ gender: '5', password: undefined }), {
      'accept-language': 'ko',
    });
    expectValidationError(res, {
      gender: ['선택된 성별은 유효하지 않습니다.'],
      password: ['가입 유형이 email일 때 비밀번호 필드는 필수입니다.'],
    });
  });

  it('writes nothing when validation fails', async () => {
    const body = form({ gender: '9' });
    expectValidationError(await postForm(ctx.app, URL, body), {
      gender: ['The selected gender is invalid.'],
    });
    const rows = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM users WHERE lower(email) = lower(${body.email})`.execute(
      ctx.database.handle.db,
    );
    expect(rows.rows[0]?.n).toBe(0);
  });
});
