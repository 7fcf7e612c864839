import { sql } from 'kysely';
import { describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../src/app.js';
import { newId } from '../../src/lib/ids.js';
import { PasswordHasher } from '../../src/lib/passwords.js';
import { testConfig, useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, registerUser, unique } from '../helpers/factories.js';
import { expectError, expectOk, expectValidationError, postForm, postJson } from '../helpers/http.js';

const URL = '/v1/auth/login/email';
const INVALID_CREDENTIALS = [
  401,
  'Unauthorized',
  'The login credentials are invalid.',
  { status: 'authentication_failed' },
] as const;

type SignedIn = { user: Record<string, unknown> & { id: string; api_token: string } };

describe.each(backends)('%s: POST /{v}/auth/login/email', (backend) => {
  const ctx = useTestApp(backend);

  const userRow = async (userId: string) =>
    (
      await sql<{
        updated_at: Date;
      }>`SELECT updated_at FROM users WHERE id = ${userId}`.execute(ctx.database.handle.db)
    ).rows[0] as { updated_at: Date };

  it('answers 200 with the user object and a new token', async () => {
    const user = await registerUser(ctx.app);
    const res = await postForm(ctx.app, URL, { email: user.email, password: user.password });
    const { api_token: _registerToken, ...registered } = user.user;
    expect(res.json()).toEqual({
      meta: { code: 200 },
      data: { user: { ...registered, api_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) } },
    });
    expect((res.json().data as SignedIn).user.api_token).not.toBe(user.token);
  });

  it('issues a new token per login, and every one stays valid (one per device)', async () => {
    const user = await registerUser(ctx.app);
    const tokens = [user.token];
    for (let i = 0; i < 3; i++) {
      tokens.push(
        expectOk<SignedIn>(await postForm(ctx.app, URL, { email: user.email, password: user.password })).user
          .api_token,
      );
    }
    expect(new Set(tokens).size).toBe(4);
    for (const token of tokens) {
      const me = expectOk<SignedIn>(
        await ctx.app.inject({ method: 'GET', url: '/v1/user/get', headers: bearer(token) }),
      );
      expect(me.user.id).toBe(user.id);
    }
  });

  it('matches the email case-insensitively and trims it', async () => {
    const user = await registerUser(ctx.app, { email: `Case.Login${unique()}@Example.com` });
    const { user: signedIn } = expectOk<SignedIn>(
      await postForm(ctx.app, URL, { email: `  ${user.email.toUpperCase()} `, password: user.password }),
    );
    expect(signedIn.id).toBe(user.id);
    expect(signedIn.email).toBe(user.email);
  });

  it('accepts a JSON body', async () => {
    const user = await registerUser(ctx.app);
    expectOk(await postJson(ctx.app, URL, { email: user.email, password: user.password }));
  });

  it('answers 401 for a wrong password', async () => {
    const user = await registerUser(ctx.app);
    expectError(
      await postForm(ctx.app, URL, { email: user.email, password: `${user.password}x` }),
      ...INVALID_CREDENTIALS,
    );
  });

  it('never trims the password: a padded password only matches itself', async () => {
    const password = ` Padded-Passphrase-${unique()} `;
    const user = await registerUser(ctx.app, { password });
    expectError(
      await postForm(ctx.app, URL, { email: user.email, password: password.trim() }),
      ...INVALID_CREDENTIALS,
    );
    expectOk(await postForm(ctx.app, URL, { email: user.email, password }));
  });

  it('compares the password case-sensitively', async () => {
    const user = await registerUser(ctx.app);
    expectError(
      await postForm(ctx.app, URL, { email: user.email, password: user.password.toUpperCase() }),
      ...INVALID_CREDENTIALS,
    );
  });

  it('answers the same 401 for an account that has no password (provider-only)', async () => {
    const id = unique();
    const email = `provider${id}@example.com`;
    await sql`INSERT INTO users (id, email, username, slug, gender) VALUES (${newId()}, ${email}, ${`prov${id}`}, ${`prov-${id}`}, 0)`.execute(
      ctx.database.handle.db,
    );
    expectError(
      await postForm(ctx.app, URL, { email, password: 'Any-Password-At-All' }),
      ...INVALID_CREDENTIALS,
    );
  });

  it('spends one real argon2 verification on an account without a password, as on one with a password', async () => {
    // A spy on the real hasher (it still hashes): the timing equaliser must run, not merely answer false.
    const verify = vi.spyOn(PasswordHasher.prototype, 'verify');
    try {
      const id = unique();
      const email = `nopass${id}@example.com`;
      await sql`INSERT INTO users (id, email, username, slug, gender) VALUES (${newId()}, ${email}, ${`nopass${id}`}, ${`nopass-${id}`}, 0)`.execute(
        ctx.database.handle.db,
      );
      const withPassword = await registerUser(ctx.app);
      verify.mockClear();
      expectError(
        await postForm(ctx.app, URL, { email, password: 'Guess-Without-Hash' }),
        ...INVALID_CREDENTIALS,
      );
      expect(verify.mock.calls).toEqual([[expect.stringMatching(/^\$argon2id\$/), 'Guess-Without-Hash']]);
      expect(await verify.mock.results[0]?.value).toBe(false);
      verify.mockClear();
      expectError(
        await postForm(ctx.app, URL, { email: withPassword.email, password: 'Guess-With-Hash' }),
        ...INVALID_CREDENTIALS,
      );
      expect(verify.mock.calls).toEqual([[expect.stringMatching(/^\$argon2id\$/), 'Guess-With-Hash']]);
    } finally {
      verify.mockRestore();
    }
  });

  it('upgrades a hash made at a lower argon2 cost at the next successful login, and only then', async () => {
    const storedHash = async (userId: string) =>
      (
        await sql<{
          password_hash: string;
        }>`SELECT password_hash FROM users WHERE id = ${userId}`.execute(ctx.database.handle.db)
      ).rows[0]?.password_hash;
    const user = await registerUser(ctx.app);
    const before = await storedHash(user.id);
    expect(before).toMatch(/^\$argon2id\$v=19\$m=1024,t=1,p=1\$/);
    // The same database, served by an instance whose operator raised the cost.
    const raised = await buildApp(
      testConfig({ ARGON2_MEMORY_KIB: '2048', ARGON2_TIME_COST: '2' }, ctx.dataDir),
      {
        database: ctx.database.handle,
      },
    );
    try {
      const updatedAt = (await userRow(user.id)).updated_at;
      expectError(
        await postForm(raised, URL, { email: user.email, password: 'Not-The-Password-1' }),
        ...INVALID_CREDENTIALS,
      );
      expect(await storedHash(user.id)).toBe(before);
      expectOk(await postForm(raised, URL, { email: user.email, password: user.password }));
      const after = await storedHash(user.id);
      expect(after).toMatch(/^\$argon2id\$v=19\$m=2048,t=2,p=1\$/);
      // A new hash of the same password, not a profile change: both instances still sign the user in.
      expect((await userRow(user.id)).updated_at).toEqual(updatedAt);
      expectOk(await postForm(raised, URL, { email: user.email, password: user.password }));
      expect(await storedHash(user.id)).toBe(after);
      expectOk(await postForm(ctx.app, URL, { email: user.email, password: user.password }));
    } finally {
      await raised.close();
    }
  });

  it('answers 401, never 500, for a stored hash it cannot read', async () => {
    const id = unique();
    const email = `corrupt${id}@example.com`;
    await sql`INSERT INTO users (id, email, username, slug, gender, password_hash) VALUES (${newId()}, ${email}, ${`bad${id}`}, ${`bad-${id}`}, 1, ${'$argon2id$v=19$m=1024,t=1,p=1$truncated'})`.execute(
      ctx.database.handle.db,
    );
    expectError(
      await postForm(ctx.app, URL, { email, password: 'Any-Password-At-All' }),
      ...INVALID_CREDENTIALS,
    );
  });

  it('answers 422 "The selected email is invalid." for an email no user has', async () => {
    expectValidationError(
      await postForm(ctx.app, URL, { email: `nobody${unique()}@example.com`, password: 'Whatever-123' }),
      { email: ['The selected email is invalid.'] },
    );
  });

  it.each([
    [{}, { email: ['The email field is required.'], password: ['The password field is required.'] }],
    [{ email: 'bad', password: 'x' }, { email: ['The email must be a valid email address.'] }],
    [
      { email: `${'a'.repeat(250)}@b.com`, password: 'x' },
      { email: ['The email may not be greater than 255 characters.'] },
    ],
    [
      { email: ['a@b.co'], password: ['x'] },
      { email: ['The email must be a string.'], password: ['The password must be a string.'] },
    ],
  ])('answers 422 for %o', async (body, data) => {
    expectValidationError(await postForm(ctx.app, URL, body), data);
  });

  it('refuses a password over 1024 characters before hashing it', async () => {
    const user = await registerUser(ctx.app);
    expectValidationError(await postForm(ctx.app, URL, { email: user.email, password: 'p'.repeat(1025) }), {
      password: ['The password may not be greater than 1024 characters.'],
    });
  });

  it('checks the email before the password: a wrong-shaped password does not hide an unknown email', async () => {
    expectValidationError(
      await postJson(ctx.app, URL, { email: `ghost${unique()}@example.com`, password: 123 }),
      {
        email: ['The selected email is invalid.'],
        password: ['The password must be a string.'],
      },
    );
  });

  it('is served under the dev version', async () => {
    const user = await registerUser(ctx.app);
    expectOk(
      await postForm(ctx.app, '/dev/auth/login/email', { email: user.email, password: user.password }),
    );
  });
});
