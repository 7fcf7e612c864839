import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { registerUser, unique } from '../helpers/factories.js';
import { expectOk, expectValidationError, postForm, postJson, postMultipart } from '../helpers/http.js';

describe.each(backends)('%s: POST /{v}/validate/email', (backend) => {
  const ctx = useTestApp(backend);
  const url = '/v1/validate/email';

  it('answers 200 with the submitted email and status "valid" for a free address', async () => {
    const email = `free${unique()}@example.com`;
    expect(expectOk(await postForm(ctx.app, url, { email }))).toEqual({ email, status: 'valid' });
  });

  it('answers with the trimmed value, as the parameter bag trims', async () => {
    const email = `trim${unique()}@example.com`;
    expect(expectOk(await postForm(ctx.app, url, { email: `  ${email}\t` }))).toEqual({
      email,
      status: 'valid',
    });
  });

  it('is served under every configured version and reads form, JSON and multipart bodies', async () => {
    const email = `formats${unique()}@example.com`;
    for (const res of [
      await postForm(ctx.app, '/dev/validate/email', { email }),
      await postJson(ctx.app, url, { email }),
      await postMultipart(ctx.app, url, { email }),
    ]) {
      expect(expectOk(res)).toEqual({ email, status: 'valid' });
    }
  });

  it.each([
    ['missing', {}, 'The email field is required.'],
    ['empty', { email: '' }, 'The email field is required.'],
    ['only spaces', { email: '   ' }, 'The email field is required.'],
    ['malformed', { email: 'not-an-email' }, 'The email must be a valid email address.'],
    ['without a dot in the domain', { email: 'kim@localhost' }, 'The email must be a valid email address.'],
    ['an array', { email: ['a@b.co'] }, 'The email must be a string.'],
  ])('refuses an email that is %s', async (_why, body, message) => {
    expectValidationError(await postForm(ctx.app, url, body), { email: [message] });
  });

  it('refuses a 256-character email with the length message alone (first failure ends the field)', async () => {
    const email = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(59)}.com`;
    expect(email).toHaveLength(256);
    expectValidationError(await postForm(ctx.app, url, { email }), {
      email: ['The email may not be greater than 255 characters.'],
    });
    expect(expectOk(await postForm(ctx.app, url, { email: email.slice(1) })).status).toBe('valid');
  });

  it('refuses a JSON value of the wrong shape as a 422, never a 500', async () => {
    for (const email of [42, true, { address: 'a@b.co' }, ['a@b.co']]) {
      expectValidationError(await postJson(ctx.app, url, { email }), {
        email: ['The email must be a string.'],
      });
    }
  });

  it('refuses an address already registered, whatever its case', async () => {
    const user = await registerUser(ctx.app, { email: `Taken${unique()}@Example.com` });
    for (const email of [user.email, user.email.toLowerCase(), user.email.toUpperCase()]) {
      expectValidationError(await postForm(ctx.app, url, { email }), {
        email: ['The email has already been taken.'],
      });
    }
  });

  it('answers in Korean when the client prefers it', async () => {
    expectValidationError(
      await postForm(ctx.app, url, {}, { 'accept-language': 'ko-KR,ko;q=0.9,en;q=0.8' }),
      {
        email: ['이메일 필드는 필수입니다.'],
      },
    );
  });

  it('ignores unknown parameters', async () => {
    const email = `extra${unique()}@example.com`;
    expect(expectOk(await postForm(ctx.app, url, { email, admin: '1', username: '' }))).toEqual({
      email,
      status: 'valid',
    });
  });
});

describe.each(backends)('%s: POST /{v}/validate/username', (backend) => {
  const ctx = useTestApp(backend);
  const url = '/v1/validate/username';

  it.each(['kim', 'kim.minjun', 'kim_min-jun', '김민준', 'ㅋㅋ', 'Kim99'])('accepts %j', async (stem) => {
    const username = `${stem}${unique()}`;
    expect(expectOk(await postForm(ctx.app, url, { username }))).toEqual({ username, status: 'valid' });
  });

  it('answers with the NFC form of a decomposed Korean username', async () => {
    const suffix = unique();
    const decomposed = `\u1112\u1161\u11ab${suffix}`;
    expect(expectOk(await postForm(ctx.app, url, { username: decomposed }))).toEqual({
      username: `한${suffix}`,
      status: 'valid',
    });
  });

  it.each([
    ['missing', {}, 'The username field is required.'],
    ['a single character', { username: 'k' }, 'The username format is invalid.'],
    ['starting with a period', { username: '.kim' }, 'The username format is invalid.'],
    ['ending with a hyphen', { username: 'kim-' }, 'The username format is invalid.'],
    [
      'holding a colon (a literal hyphen, not a range)',
      { username: 'a:b' },
      'The username format is invalid.',
    ],
    ['holding a space', { username: 'kim min' }, 'The username format is invalid.'],
    ['holding an at sign', { username: 'kim@home' }, 'The username format is invalid.'],
    ['an emoji', { username: 'kim😀lee' }, 'The username format is invalid.'],
    ['256 characters', { username: 'a'.repeat(256) }, 'The username may not be greater than 255 characters.'],
    [
      '256 Korean syllables',
      { username: '가'.repeat(256) },
      'The username may not be greater than 255 characters.',
    ],
  ])('refuses a username that is %s', async (_why, body, message) => {
    expectValidationError(await postForm(ctx.app, url, body), { username: [message] });
  });

  it('accepts 255 Korean syllables: lengths count characters, not bytes', async () => {
    const username = `${'가'.repeat(255 - 8)}${unique().slice(0, 8).padEnd(8, '0')}`;
    expect([...username]).toHaveLength(255);
    expect(expectOk(await postForm(ctx.app, url, { username })).status).toBe('valid');
  });

  it('refuses a username already registered, whatever its case', async () => {
    const user = await registerUser(ctx.app, { username: `MixedCase${unique()}` });
    expectValidationError(await postForm(ctx.app, url, { username: user.username.toLowerCase() }), {
      username: ['The username has already been taken.'],
    });
  });

  it('finds a taken Korean username sent decomposed', async () => {
    const suffix = unique();
    await registerUser(ctx.app, { username: `한${suffix}` });
    expectValidationError(await postForm(ctx.app, url, { username: `\u1112\u1161\u11ab${suffix}` }), {
      username: ['The username has already been taken.'],
    });
  });
});

describe.each(backends)('%s: POST /{v}/validate/slug', (backend) => {
  const ctx = useTestApp(backend);
  const url = '/v1/validate/slug';

  it('accepts a free slug of 4 to 256 characters', async () => {
    for (const slug of [
      `ab${unique()}`.slice(0, 4),
      `my-slug_${unique()}`,
      `s${unique()}`.padEnd(256, 'x'),
    ]) {
      expect(expectOk(await postForm(ctx.app, url, { slug }))).toEqual({ slug, status: 'valid' });
    }
  });

  it.each([
    ['missing', {}, 'The slug field is required.'],
    ['3 characters', { slug: 'abc' }, 'The slug must be at least 4 characters.'],
    ['257 characters', { slug: 'a'.repeat(257) }, 'The slug may not be greater than 256 characters.'],
    ['holding a period', { slug: 'my.slug' }, 'The slug format is invalid.'],
    ['ending with an underscore', { slug: 'myslug_' }, 'The slug format is invalid.'],
    ['Korean', { slug: '슬러그입니다' }, 'The slug format is invalid.'],
  ])(
    'keys the error of a slug that is %s by `slug` (deliberate: the field that was sent)',
    async (_why, body, message) => {
      expectValidationError(await postForm(ctx.app, url, body), { slug: [message] });
    },
  );

  it('refuses a slug already held, whatever its case', async () => {
    const user = await registerUser(ctx.app, { slug: `Held-${unique()}` });
    expectValidationError(await postForm(ctx.app, url, { slug: user.slug.toUpperCase() }), {
      slug: ['The slug has already been taken.'],
    });
  });
});
