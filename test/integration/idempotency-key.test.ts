import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { IdempotencyRepo } from '../../src/modules/idempotency/repo.js';
import { IdempotencyService } from '../../src/modules/idempotency/service.js';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, registerUser, registrationForm } from '../helpers/factories.js';
import { expectOk, expectValidationError, postForm } from '../helpers/http.js';
import type { Post } from '../helpers/posts.js';

interface Registered {
  user: { id: string; email: string; api_token: string };
}

const keyed = (key: string) => ({ 'idempotency-key': key });

describe.each(backends)('%s: Idempotency-Key', (backend) => {
  const ctx = useTestApp(backend);
  const register = (fields: Record<string, string>, key?: string) =>
    postForm(ctx.app, '/v1/auth/register', fields, key ? keyed(key) : {});
  const createPost = (token: string, text: string, key?: string) =>
    postForm(ctx.app, '/v1/post/create', { text }, { ...bearer(token), ...(key ? keyed(key) : {}) });
  const usersWithEmail = async (email: string) =>
    Number(
      (
        await sql<{
          n: number;
        }>`SELECT count(*)::int AS n FROM users WHERE lower(email) = lower(${email})`.execute(
          ctx.database.handle.db,
        )
      ).rows[0]?.n,
    );

  it('answers a retried register with the first answer, token included, instead of "taken"', async () => {
    const fields = registrationForm();
    const key = randomUUID();
    const first = expectOk<Registered>(await register(fields, key));
    const again = expectOk<Registered>(await register(fields, key));
    expect(again).toEqual(first);
    expectOk(await ctx.app.inject({ url: '/v1/user/get', headers: bearer(again.user.api_token) }));
    // Without the key, the same request is the usual "taken".
    expectValidationError(await register(fields), {
      email: ['The email has already been taken.'],
      username: ['The username has already been taken.'],
    });
    expect(await usersWithEmail(fields.email)).toBe(1);
  });

  it('scopes a register key by the lower-cased email', async () => {
    const key = randomUUID();
    const fields = registrationForm();
    const first = expectOk<Registered>(await register(fields, key));
    // The address in other case is the same scope, but not the same request: refused, not a second account.
    const sameEmail = { ...fields, email: fields.email.toUpperCase() };
    expectValidationError(await register(sameEmail, key), {
      'Idempotency-Key': ['The Idempotency-Key was already used for a different request.'],
    });
    // The same key for another address is another request altogether: a second account.
    const other = expectOk<Registered>(await register(registrationForm(), key));
    expect(other.user.id).not.toBe(first.user.id);
  });

  it('refuses the same key with other parameters (a 422 on Idempotency-Key)', async () => {
    const key = randomUUID();
    const fields = registrationForm();
    expectOk(await register(fields, key));
    const res = await register({ ...fields, password: `${fields.password}-other` }, key);
    expectValidationError(res, {
      'Idempotency-Key': ['The Idempotency-Key was already used for a different request.'],
    });
  });

  it.each([
    ['short', 'The Idempotency-Key must be at least 16 characters.'],
    ['x'.repeat(256), 'The Idempotency-Key may not be greater than 255 characters.'],
    ['has spaces in it, sixteen+', 'The Idempotency-Key format is invalid.'],
    ['ünïcödé-ünïcödé-ünïcödé', 'The Idempotency-Key format is invalid.'],
  ])('refuses the malformed key %j with a 422 naming the header', async (key, message) => {
    const fields = registrationForm();
    expectValidationError(await register(fields, key), { 'Idempotency-Key': [message] });
    expect(await usersWithEmail(fields.email)).toBe(0);
  });

  it('answers a retried post/create with the first post, and makes one post', async () => {
    const author = await registerUser(ctx.app);
    const key = randomUUID();
    const first = expectOk<{ post: Post }>(await createPost(author.token, 'once only', key));
    const again = expectOk<{ post: Post }>(await createPost(author.token, 'once only', key));
    expect(again).toEqual(first);
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM posts WHERE user_id = ${author.id}::uuid`.execute(
      ctx.database.handle.db,
    );
    expect(rows[0]?.n).toBe(1);
    expectValidationError(await createPost(author.token, 'something else', key), {
      'Idempotency-Key': ['The Idempotency-Key was already used for a different request.'],
    });
  });

  it("scopes a post/create key by the signed-in user: another user's same key makes their own post", async () => {
    const [alice, bob] = [await registerUser(ctx.app), await registerUser(ctx.app)];
    const key = randomUUID();
    const hers = expectOk<{ post: Post }>(await createPost(alice.token, 'same text', key)).post;
    const his = expectOk<{ post: Post }>(await createPost(bob.token, 'same text', key)).post;
    expect(his.id).not.toBe(hers.id);
    expect(his.author.id).toBe(bob.id);
  });

  it('stores only hashes and ciphertext: neither the key, the token nor the email is readable', async () => {
    const fields = registrationForm();
    const key = `plain-${randomUUID()}`;
    const { user } = expectOk<Registered>(await register(fields, key));
    const { rows } = await sql<{ key_hash: Uint8Array; fingerprint: Uint8Array; answer: Uint8Array }>`
      SELECT key_hash, fingerprint, answer FROM idempotency_keys WHERE user_id = ${user.id}::uuid`.execute(
      ctx.database.handle.db,
    );
    expect(rows).toHaveLength(1);
    const stored = Buffer.concat(Object.values(rows[0] as object).map((value) => Buffer.from(value)));
    for (const secret of [key, user.api_token, fields.email, fields.password]) {
      expect(stored.includes(Buffer.from(secret))).toBe(false);
    }
  });

  it('keeps a record for a day: the prune removes only older ones, and account deletion takes them', async () => {
    const fields = registrationForm();
    const { user } = expectOk<Registered>(await register(fields, randomUUID()));
    const db = ctx.database.handle.db;
    const count = async () =>
      Number(
        (
          await sql<{ n: number }>`
            SELECT count(*)::int AS n FROM idempotency_keys WHERE user_id = ${user.id}::uuid`.execute(db)
        ).rows[0]?.n,
      );
    const records = new IdempotencyService(new IdempotencyRepo(db));
    await records.prune();
    expect(await count()).toBe(1);
    await sql`UPDATE idempotency_keys SET created_at = now() - interval '25 hours'
      WHERE user_id = ${user.id}::uuid`.execute(db);
    await records.prune();
    expect(await count()).toBe(0);
  });
});

describe.each(backends.filter((backend) => backend === 'postgres'))(
  '%s: concurrent requests with one Idempotency-Key',
  (backend) => {
    const ctx = useTestApp(backend);

    it('make one account, and every request answers with it', async () => {
      const fields = registrationForm();
      const key = randomUUID();
      const answers = await Promise.all(
        Array.from({ length: 6 }, () => postForm(ctx.app, '/v1/auth/register', fields, keyed(key))),
      );
      const ids = answers.map((res) => expectOk<Registered>(res).user.id);
      expect(new Set(ids).size).toBe(1);
      const { rows } = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM users WHERE lower(email) = lower(${fields.email})`.execute(
        ctx.database.handle.db,
      );
      expect(rows[0]?.n).toBe(1);
    });

    it('make one post, and every request answers with it', async () => {
      const author = await registerUser(ctx.app);
      const key = randomUUID();
      const answers = await Promise.all(
        Array.from({ length: 6 }, () =>
          postForm(
            ctx.app,
            '/v1/post/create',
            { text: 'racing' },
            { ...bearer(author.token), ...keyed(key) },
          ),
        ),
      );
      const ids = answers.map((res) => expectOk<{ post: Post }>(res).post.id);
      expect(new Set(ids).size).toBe(1);
      const { rows } = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM posts WHERE user_id = ${author.id}::uuid`.execute(
        ctx.database.handle.db,
      );
      expect(rows[0]?.n).toBe(1);
    });
  },
);
