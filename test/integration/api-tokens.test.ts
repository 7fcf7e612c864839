import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.js';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, registerUser, registrationForm } from '../helpers/factories.js';
import { expectError, expectOk, postForm, UNAUTHENTICATED } from '../helpers/http.js';

type UserData = { user: { id: string; email: string } };

function getUser(app: FastifyInstance, headers: Record<string, string> = {}, query = '') {
  return app.inject({ method: 'GET', url: `/v1/user/get${query}`, headers });
}

function sha256(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

describe.each(backends)('%s: API tokens', (backend) => {
  const ctx = useTestApp(backend);

  describe('presenting a token', () => {
    it('accepts `Authorization: Bearer`, whatever the scheme’s case', async () => {
      const user = await registerUser(ctx.app);
      for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
        const data = expectOk<UserData>(await getUser(ctx.app, { authorization: `${scheme} ${user.token}` }));
        expect(data.user.id).toBe(user.id);
      }
    });

    it('accepts `api_token` in the query string', async () => {
      const user = await registerUser(ctx.app);
      expect(expectOk<UserData>(await getUser(ctx.app, {}, `?api_token=${user.token}`)).user.id).toBe(
        user.id,
      );
    });

    it('accepts `api_token` in a form body', async () => {
      const user = await registerUser(ctx.app);
      expectOk(await postForm(ctx.app, '/v1/auth/logout', { api_token: user.token }));
      expectError(await getUser(ctx.app, bearer(user.token)), 401, ...UNAUTHENTICATED);
    });

    it('refuses a header beside a different query token; an empty `api_token` presents none', async () => {
      const user = await registerUser(ctx.app);
      expectError(
        await getUser(ctx.app, bearer(user.token), '?api_token=not-a-token'),
        401,
        ...UNAUTHENTICATED,
      );
      expect(expectOk<UserData>(await getUser(ctx.app, bearer(user.token), '?api_token=')).user.id).toBe(
        user.id,
      );
    });

    it('answers every user with their own account, whatever the request names', async () => {
      const alice = await registerUser(ctx.app);
      const bob = await registerUser(ctx.app);
      const res = await getUser(ctx.app, bearer(alice.token), `?id=${bob.id}&email=${bob.email}`);
      expect(expectOk<UserData>(res).user).toEqual(
        expect.objectContaining({ id: alice.id, email: alice.email }),
      );
    });

    it.each([
      ['no token', {}],
      ['an unknown token', bearer('dGhpcyBpcyBub3QgYSByZWFsIHRva2VuIGF0IGFsbCEhIQ')],
      ['another scheme', { authorization: 'Basic dXNlcjpwYXNzd29yZA==' }],
      ['a bare token without a scheme', { authorization: 'dGhpcyBpcyBub3Q' }],
      ['an empty bearer', { authorization: 'Bearer ' }],
      ['a token of 513 characters', bearer('a'.repeat(513))],
    ])('answers 401 Unauthenticated for %s', async (_why, headers) => {
      expectError(await getUser(ctx.app, headers), 401, ...UNAUTHENTICATED);
    });

    it('looks up tokens of up to 512 characters only: a longer one never reaches the database', async () => {
      // Rows whose digests match a 512- and a 513-character token: only the length cap can tell them apart.
      const user = await registerUser(ctx.app);
      const fits = 'T'.repeat(512);
      const tooLong = 'T'.repeat(513);
      const huge = 'T'.repeat(100_000);
      for (const token of [fits, tooLong, huge]) {
        await sql`INSERT INTO api_tokens (id, user_id, token_hash) VALUES (${newId()}, ${user.id}, ${sha256(token)})`.execute(
          ctx.database.handle.db,
        );
      }
      expect(expectOk<UserData>(await getUser(ctx.app, bearer(fits))).user.id).toBe(user.id);
      expectError(await getUser(ctx.app, bearer(tooLong)), 401, ...UNAUTHENTICATED);
      // 100 KB through the body (a header that long is cut off by the HTTP server before us).
      expectError(await postForm(ctx.app, '/v1/auth/logout', { api_token: huge }), 401, ...UNAUTHENTICATED);
    });

    it('answers 401 for a token that differs from a real one by one character', async () => {
      const user = await registerUser(ctx.app);
      const last = user.token.slice(-1) === 'A' ? 'B' : 'A';
      expectError(
        await getUser(ctx.app, bearer(`${user.token.slice(0, -1)}${last}`)),
        401,
        ...UNAUTHENTICATED,
      );
    });
  });

  describe('storage', () => {
    it('keeps only the SHA-256 of a token, named after the client’s user agent', async () => {
      const user = await registerUser(ctx.app);
      const rows = await sql<{ token_hash: Uint8Array; name: string | null; expires_at: Date | null }>`
        SELECT token_hash, name, expires_at FROM api_tokens WHERE user_id = ${user.id}`.execute(
        ctx.database.handle.db,
      );
      expect(rows.rows).toHaveLength(1);
      const row = rows.rows[0] as (typeof rows.rows)[number];
      expect(Buffer.from(row.token_hash)).toEqual(sha256(user.token));
      expect(row.name).toBe('lightMyRequest');
      expect(row.expires_at).toBeNull();
      const everything = await sql<{
        dump: string;
      }>`SELECT row_to_json(t)::text AS dump FROM api_tokens t`.execute(ctx.database.handle.db);
      for (const { dump } of everything.rows) expect(dump).not.toContain(user.token);
    });

    it('cuts a long user agent to 255 characters for the token name', async () => {
      const res = await postForm(ctx.app, '/v1/auth/register', registrationForm(), {
        'user-agent': `App/1.0 ${'x'.repeat(400)}`,
      });
      const { user } = expectOk<UserData>(res);
      const rows = await sql<{
        name: string;
      }>`SELECT name FROM api_tokens WHERE user_id = ${user.id}`.execute(ctx.database.handle.db);
      expect(rows.rows[0]?.name).toBe(`App/1.0 ${'x'.repeat(400)}`.slice(0, 255));
    });

    it('refuses a token once it has expired', async () => {
      const user = await registerUser(ctx.app);
      expectOk(await getUser(ctx.app, bearer(user.token)));
      await sql`UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE token_hash = ${sha256(user.token)}`.execute(
        ctx.database.handle.db,
      );
      expectError(await getUser(ctx.app, bearer(user.token)), 401, ...UNAUTHENTICATED);
    });

    it('refuses every token of a deleted user', async () => {
      const user = await registerUser(ctx.app);
      await sql`DELETE FROM users WHERE id = ${user.id}`.execute(ctx.database.handle.db);
      expectError(await getUser(ctx.app, bearer(user.token)), 401, ...UNAUTHENTICATED);
    });
  });

  describe('POST /{v}/auth/logout', () => {
    it('revokes the presented token and only that one', async () => {
      const user = await registerUser(ctx.app);
      const second = expectOk<{ user: { api_token: string } }>(
        await postForm(ctx.app, '/v1/auth/login/email', { email: user.email, password: user.password }),
      ).user.api_token;
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/v1/auth/logout',
        headers: bearer(user.token),
      });
      expect(res.json()).toEqual({ meta: { code: 200 }, data: { status: 'logged_out' } });
      expectError(await getUser(ctx.app, bearer(user.token)), 401, ...UNAUTHENTICATED);
      expectOk(await getUser(ctx.app, bearer(second)));
    });

    it('answers 401 for a token already revoked', async () => {
      const user = await registerUser(ctx.app);
      expectOk(await ctx.app.inject({ method: 'POST', url: '/v1/auth/logout', headers: bearer(user.token) }));
      expectError(
        await ctx.app.inject({ method: 'POST', url: '/v1/auth/logout', headers: bearer(user.token) }),
        401,
        ...UNAUTHENTICATED,
      );
    });

    it('answers 401 without a token', async () => {
      expectError(await ctx.app.inject({ method: 'POST', url: '/v1/auth/logout' }), 401, ...UNAUTHENTICATED);
    });

    it('revokes neither token of a request that presents two (the body’s and the header’s)', async () => {
      const alice = await registerUser(ctx.app);
      const bob = await registerUser(ctx.app);
      expectError(
        await postForm(ctx.app, '/v1/auth/logout', { api_token: bob.token }, bearer(alice.token)),
        401,
        ...UNAUTHENTICATED,
      );
      expectOk(await getUser(ctx.app, bearer(alice.token)));
      expectOk(await getUser(ctx.app, bearer(bob.token)));
      // The same token in both places is one credential: that one is revoked.
      expectOk(await postForm(ctx.app, '/v1/auth/logout', { api_token: bob.token }, bearer(bob.token)));
      expectError(await getUser(ctx.app, bearer(bob.token)), 401, ...UNAUTHENTICATED);
    });
  });
});

describe.each(backends)('%s: TOKEN_TTL_DAYS', (backend) => {
  const ctx = useTestApp(backend, { TOKEN_TTL_DAYS: '30' });

  it('gives new tokens an expiry that many days ahead, and they work until then', async () => {
    const before = Date.now();
    const user = await registerUser(ctx.app);
    const after = Date.now();
    const rows = await sql<{
      expires_at: Date;
    }>`SELECT expires_at FROM api_tokens WHERE user_id = ${user.id}`.execute(ctx.database.handle.db);
    const expiresAt = new Date(rows.rows[0]?.expires_at as Date).getTime();
    const thirtyDays = 30 * 86_400_000;
    expect(expiresAt).toBeGreaterThanOrEqual(before + thirtyDays - 1000);
    expect(expiresAt).toBeLessThanOrEqual(after + thirtyDays + 1000);
    expectOk(await getUser(ctx.app, bearer(user.token)));
  });
});
