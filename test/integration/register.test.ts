import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, registrationForm as form, unique } from '../helpers/factories.js';
import { expectOk, expectValidationError, postForm, postJson, postMultipart } from '../helpers/http.js';

const URL = '/v1/auth/register';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

type SignedIn = { user: Record<string, unknown> & { id: string; api_token: string; slug: string } };

describe.each(backends)('%s: POST /{v}/auth/register', (backend) => {
  const ctx = useTestApp(backend);

  describe('success', () => {
    it('creates the user and answers with the whole user object and a token', async () => {
      const body = form({ slug: `whole-${unique()}` });
      const res = await postForm(ctx.app, URL, body);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.json()).toEqual({
        meta: { code: 200 },
        data: {
          user: {
            id: expect.stringMatching(UUID_V7),
            email: body.email,
            username: body.username,
            slug: body.slug,
            gender: 0,
            bio: null,
            profile_picture: null,
            providers: [],
            has_password: true,
            email_verified: false,
            phone: null,
            phone_verified: false,
            identity_verified: false,
            adult: null,
            is_inspirer: false,
            created_at: expect.stringMatching(ISO),
            updated_at: expect.stringMatching(ISO),
            guardian_consent: null,
            restrictions: [],
            api_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
          },
        },
      });
      const { user } = res.json().data as SignedIn;
      expect(user.updated_at).toBe(user.created_at);
    });

    it('gives a token that signs in as that user', async () => {
      const { user } = expectOk<SignedIn>(await postForm(ctx.app, URL, form()));
      const { api_token: token, ...view } = user;
      const me = expectOk(
        await ctx.app.inject({ method: 'GET', url: '/v1/user/get', headers: bearer(token) }),
      );
      expect(me).toEqual({ user: { ...view, pending_consents: [] } });
    });

    it('accepts a JSON body with a numeric gender and a boolean agreement', async () => {
      const body = form();
      const { user } = expectOk<SignedIn>(
        await postJson(ctx.app, URL, { ...body, gender: 1, user_agreement: true }),
      );
      expect(user.gender).toBe(1);
      expect(user.email).toBe(body.email);
    });

    it('accepts a multipart body without a picture', async () => {
      const body = form();
      expect(expectOk<SignedIn>(await postMultipart(ctx.app, URL, body)).user.username).toBe(body.username);
    });

    it.each(['on', 'yes', '1', 'true'])('takes user_agreement=%j as accepted', async (value) => {
      expectOk(await postForm(ctx.app, URL, form({ user_agreement: value })));
    });

    // PHP's in_array(..., true) compares exactly, so Laravel's `accepted` refuses other spellings.
    it.each(['ON', 'Yes', 'TRUE'])('refuses user_agreement=%j, as Laravel does', async (value) => {
      expectValidationError(await postForm(ctx.app, URL, form({ user_agreement: value })), {
        user_agreement: ['The user agreement must be accepted.'],
      });
    });

    it('is served under the dev version too', async () => {
      expectOk(await postForm(ctx.app, '/dev/auth/register', form()));
    });

    it('stores the email as given and trims every field but the password', async () => {
      const id = unique();
      const password = `  Spaced-Out-Phrase-${id}  `;
      const body = form({ email: `  Mixed.Case${id}@Example.COM `, username: `\tspaced${id} `, password });
      const { user } = expectOk<SignedIn>(await postForm(ctx.app, URL, body));
      expect(user.email).toBe(`Mixed.Case${id}@Example.COM`);
      expect(user.username).toBe(`spaced${id}`);
      const login = await postForm(ctx.app, '/v1/auth/login/email', {
        email: user.email as string,
        password,
      });
      expectOk(login);
    });

    it('stores a decomposed Korean username in NFC', async () => {
      const id = unique();
      const { user } = expectOk<SignedIn>(
        await postForm(ctx.app, URL, form({ username: `\u1112\u1161\u11ab${id}` })),
      );
      expect(user.username).toBe(`한${id}`);
    });

    it('ignores fields a client must not set (id, is_inspirer, password_hash)', async () => {
      const body = {
        ...form(),
        id: '00000000-0000-7000-8000-000000000000',
        is_inspirer: '1',
        password_hash: 'x',
      };
      const { user } = expectOk<SignedIn>(await postForm(ctx.app, URL, body));
      expect(user.id).not.toBe(body.id);
      expect(user.is_inspirer).toBe(false);
      expect(user.has_password).toBe(true);
    });

    it('accepts a password of exactly 8 and of exactly 1024 characters', async () => {
      expectOk(await postForm(ctx.app, URL, form({ password: 'Zq8#vL2m' })));
      expectOk(await postForm(ctx.app, URL, form({ password: `Zq8#${'vL2m'.repeat(255)}` })));
    });
  });

  describe('slug', () => {
    it('uses the slug the client chose', async () => {
      const slug = `Chosen_${unique()}`;
      expect(expectOk<SignedIn>(await postForm(ctx.app, URL, form({ slug }))).user.slug).toBe(slug);
    });

    it('derives a slug from the email’s local part when none is sent', async () => {
      const id = unique();
      const first = expectOk<SignedIn>(
        await postForm(ctx.app, URL, form({ email: `Derive.Me${id}@one.example` })),
      );
      expect(first.user.slug).toBe(`derive-me${id}`);
      const second = expectOk<SignedIn>(
        await postForm(ctx.app, URL, form({ email: `derive.me${id}@two.example` })),
      );
      expect(second.user.slug).toMatch(new RegExp(`^derive-me${id}-[a-z0-9]{4}$`));
    });

    it('falls back to `user-` and random characters when too little of the email survives', async () => {
      const { user } = expectOk<SignedIn>(
        await postForm(ctx.app, URL, form({ email: `ab@x${unique()}.example` })),
      );
      expect(user.slug).toMatch(/^user-[a-z0-9]{8}$/);
    });

    it('derives a slug that validate/slug then calls taken', async () => {
      const { user } = expectOk<SignedIn>(await postForm(ctx.app, URL, form()));
      expectValidationError(await postForm(ctx.app, '/v1/validate/slug', { slug: user.slug }), {
        slug: ['The slug has already been taken.'],
      });
    });
  });

  describe('races', () => {
    it('lets exactly one of several simultaneous sign-ups with one email through; the others get the 422', async () => {
      const email = `race${unique()}@example.com`;
      const responses = await Promise.all(
        Array.from({ length: 4 }, () => postForm(ctx.app, URL, form({ email }))),
      );
      const winners = responses.filter((res) => res.statusCode === 200);
      expect(winners).toHaveLength(1);
      for (const res of responses.filter((r) => r.statusCode !== 200)) {
        expectValidationError(res, { email: ['The email has already been taken.'] });
      }
    });

    it('does the same for one username', async () => {
      const username = `race${unique()}`;
      const responses = await Promise.all(
        Array.from({ length: 4 }, () => postForm(ctx.app, URL, form({ username }))),
      );
      expect(responses.filter((res) => res.statusCode === 200)).toHaveLength(1);
      for (const res of responses.filter((r) => r.statusCode !== 200)) {
        expectValidationError(res, { username: ['The username has already been taken.'] });
      }
    });

    it('gives simultaneous sign-ups that derive the same slug different slugs', async () => {
      const local = `same.local${unique()}`;
      const responses = await Promise.all(
        ['a', 'b', 'c'].map((domain) =>
          postForm(ctx.app, URL, form({ email: `${local}@${domain}.example` })),
        ),
      );
      const slugs = responses.map((res) => expectOk<SignedIn>(res).user.slug);
      expect(new Set(slugs).size).toBe(3);
    });
  });
});
