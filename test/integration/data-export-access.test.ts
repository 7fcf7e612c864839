import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.js';
import { useTestApp } from '../helpers/app.js';
import {
  download,
  exportFiles,
  NOT_FOUND,
  readyExport,
  requestExport,
  exportStatus as status,
} from '../helpers/data-export.js';
import { backends } from '../helpers/database.js';
import { bearer, registerUser } from '../helpers/factories.js';
import { expectError, expectOk, postForm } from '../helpers/http.js';

describe.each(backends)('%s: user/export access, expiry and erasure', (backend) => {
  const ctx = useTestApp(backend);

  it("keeps each user's exports their own", async () => {
    const mine = await registerUser(ctx.app);
    const theirs = await registerUser(ctx.app);
    const myExport = await readyExport(ctx, mine);
    const theirExport = await readyExport(ctx, theirs);
    // Their id with my token: the same 404 as an unknown or malformed id.
    for (const id of [theirExport.id, newId(), 'not-an-id']) {
      expectError(
        await ctx.app.inject({ method: 'GET', url: `/v1/user/export/${id}`, headers: bearer(mine.token) }),
        ...NOT_FOUND,
      );
    }
    // My link's token on their id, no token, a wrong one, an array: refused alike.
    const token = new URL(myExport.download_url ?? '').searchParams.get('token') ?? '';
    for (const query of [`?token=${token}`, '', '?token=', `?token=${'A'.repeat(43)}`, `?token[]=${token}`]) {
      expectError(
        await ctx.app.inject({ method: 'GET', url: `/v1/export/download/${theirExport.id}${query}` }),
        ...NOT_FOUND,
      );
    }
    expect((await download(ctx, myExport.download_url ?? '')).statusCode).toBe(200);
  });

  it('expires: the link is refused, then the zip is removed', async () => {
    const user = await registerUser(ctx.app);
    const ready = await readyExport(ctx, user);
    const row = await ctx.database.handle.db
      .selectFrom('data_exports')
      .selectAll()
      .where('id', '=', ready.id)
      .executeTakeFirstOrThrow();
    expect(await exportFiles(ctx)).toContain(row.file_key);
    await ctx.database.handle.db
      .updateTable('data_exports')
      .set({ expires_at: sql<Date>`now() - interval '1 minute'` })
      .where('id', '=', ready.id)
      .execute();
    expectError(await download(ctx, ready.download_url ?? ''), ...NOT_FOUND);
    expect(await status(ctx, user, ready.id)).toMatchObject({ status: 'expired', download_url: null });

    expect(await ctx.dataExports.expireDue()).toBeGreaterThanOrEqual(1);
    expect(await exportFiles(ctx)).not.toContain(row.file_key);
    const after = await ctx.database.handle.db
      .selectFrom('data_exports')
      .selectAll()
      .where('id', '=', ready.id)
      .executeTakeFirstOrThrow();
    expect(after).toMatchObject({ status: 'expired', file_key: null });
    expectError(await download(ctx, ready.download_url ?? ''), ...NOT_FOUND);
    // A new export may be asked for (limits are off here).
    expect((await requestExport(ctx, user)).statusCode).toBe(202);
    await ctx.dataExports.idle();
  });

  it('builds an export a crashed instance left pending on the next pass', async () => {
    const user = await registerUser(ctx.app);
    const orphan = newId();
    // Claimed by an instance that died: its lease ran out a minute ago.
    await ctx.database.handle.db
      .insertInto('data_exports')
      .values({
        id: orphan,
        user_id: user.id,
        locale: 'en',
        attempts: 1,
        next_attempt_at: sql<Date>`now() - interval '1 minute'`,
      })
      .execute();
    expect(await ctx.dataExports.buildDue()).toBeGreaterThanOrEqual(1);
    expect(await status(ctx, user, orphan)).toMatchObject({ status: 'ready' });
  });

  it('is erased with the account, files included', async () => {
    const user = await registerUser(ctx.app);
    const ready = await readyExport(ctx, user);
    const row = await ctx.database.handle.db
      .selectFrom('data_exports')
      .selectAll()
      .where('id', '=', ready.id)
      .executeTakeFirstOrThrow();
    expectOk(
      await postForm(ctx.app, '/v1/user/delete', { current_password: user.password }, bearer(user.token)),
    );
    // Scheduled (the default grace period): the export stays until the erasure, which the sweep runs when due.
    expect(await exportFiles(ctx)).toContain(row.file_key);
    await sql`UPDATE users SET deletion_due_at = now() - interval '1 second' WHERE id = ${user.id}`.execute(
      ctx.database.handle.db,
    );
    expect((await ctx.dueDeletions.eraseDue()).map((erased) => erased.id)).toEqual([user.id]);
    expect(await exportFiles(ctx)).not.toContain(row.file_key);
    const rows = await ctx.database.handle.db
      .selectFrom('data_exports')
      .select('id')
      .where('user_id', '=', user.id)
      .execute();
    expect(rows).toEqual([]);
    expectError(await download(ctx, ready.download_url ?? ''), ...NOT_FOUND);
  });
});

describe.each(backends)('%s: user/export rate limit', (backend) => {
  const ctx = useTestApp(backend, { RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_KEY_PREFIX: `export-${newId()}` });

  it('allows one new export per user per hour (a 429 after that), the pending one free', async () => {
    const user = await registerUser(ctx.app);
    const first = await requestExport(ctx, user);
    expect(first.statusCode).toBe(202);
    await ctx.dataExports.idle();
    const res = await requestExport(ctx, user);
    expect(res.statusCode).toBe(429);
    expect(res.json()).toEqual({
      meta: { code: 429, error_type: 'TooManyRequestsHttpException', error_message: 'Too Many Attempts.' },
      data: { retry_after: expect.any(Number) },
    });
    const rows = await ctx.database.handle.db
      .selectFrom('data_exports')
      .select('id')
      .where('user_id', '=', user.id)
      .execute();
    expect(rows).toHaveLength(1);
    // Another user has their own allowance.
    expect((await requestExport(ctx, await registerUser(ctx.app))).statusCode).toBe(202);
    await ctx.dataExports.idle();
  });
});
