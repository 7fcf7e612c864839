import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.js';
import { useTestApp } from '../helpers/app.js';
import {
  type ExportPage,
  type ExportView,
  exportStatus,
  listExports,
  readyExport,
} from '../helpers/data-export.js';
import { backends } from '../helpers/database.js';
import { bearer, type RegisteredUser, registerUser } from '../helpers/factories.js';
import { expectError, expectOk, expectValidationError, UNAUTHENTICATED } from '../helpers/http.js';
import { useRecordedApp } from '../helpers/query-recorder.js';

/** An older export of `user`, written as the builder and the expiry sweep leave them. */
interface OldExport {
  createdAt: string;
  status: 'ready' | 'expired' | 'failed';
  expiresAt?: string;
}

describe.each(backends)('%s: GET user/export (the list)', (backend) => {
  const ctx = useTestApp(backend);

  async function insertExport(user: RegisteredUser, old: OldExport): Promise<string> {
    const id = newId();
    await sql`
      INSERT INTO data_exports (id, user_id, status, locale, created_at, expires_at, file_key, last_error)
      VALUES (${id}::uuid, ${user.id}::uuid, ${old.status}, 'en', ${old.createdAt}::timestamptz,
              ${old.expiresAt ?? null}::timestamptz, ${old.status === 'ready' ? `${id}.zip` : null},
              ${old.status === 'failed' ? 'disk full' : null})`.execute(ctx.database.handle.db);
    return id;
  }

  /** Every page of the user's list, `limit` at a time; each page checked against the limit. */
  async function walk(user: RegisteredUser, limit: number): Promise<{ walked: ExportView[]; pages: number }> {
    const walked: ExportView[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = `?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page: ExportPage = expectOk<ExportPage>(await listExports(ctx, user.token, query));
      expect(page.exports.length).toBeLessThanOrEqual(limit);
      walked.push(...page.exports);
      cursor = page.next_cursor;
      pages += 1;
    } while (cursor !== null && pages < 20);
    return { walked, pages };
  }

  it("lists only the user's own exports, newest first, each as user/export/{id} shows it", async () => {
    const mine = await registerUser(ctx.app);
    const theirs = await registerUser(ctx.app);
    const latest = await readyExport(ctx, mine);
    const theirExport = await readyExport(ctx, theirs);
    // Microseconds apart within one millisecond, and two at the very same instant (then by id, descending):
    // a cursor that carried the time in milliseconds would skip or repeat some of these.
    const withinOneMs = await insertExport(mine, {
      createdAt: '2026-01-02T00:00:00.123456Z',
      status: 'ready',
      expiresAt: '2099-01-01T00:00:00Z',
    });
    const tied = [
      await insertExport(mine, { createdAt: '2026-01-02T00:00:00.1234Z', status: 'expired' }),
      await insertExport(mine, { createdAt: '2026-01-02T00:00:00.1234Z', status: 'expired' }),
    ].sort((a, b) => (a < b ? 1 : -1));
    const failed = await insertExport(mine, { createdAt: '2026-01-02T00:00:00.1233Z', status: 'failed' });
    const swept = await insertExport(mine, { createdAt: '2026-01-02T00:00:00.123Z', status: 'expired' });
    // Past its time but not swept yet: listed as expired, without a link.
    const lapsed = await insertExport(mine, {
      createdAt: '2026-01-01T00:00:00Z',
      status: 'ready',
      expiresAt: '2026-01-02T00:00:00Z',
    });
    const order = [latest.id, withinOneMs, ...tied, failed, swept, lapsed];

    const all = expectOk<ExportPage>(await listExports(ctx, mine.token));
    expect(all.next_cursor).toBeNull();
    expect(all.exports.map((item) => item.id)).toEqual(order);
    expect(all.exports[0]).toEqual(latest);
    expect(all.exports.map((item) => item.status)).toEqual([
      'ready',
      'ready',
      'expired',
      'expired',
      'failed',
      'expired',
      'expired',
    ]);
    for (const item of all.exports) expect(item).toEqual(await exportStatus(ctx, mine, item.id));
    expect(all.exports[6]).toMatchObject({ download_url: null });

    // Walking a page at a time: the same exports in the same order, each once; null after the last page.
    for (const [limit, pages] of [
      [1, 7],
      [2, 4],
      [3, 3],
      [7, 1],
    ] as const) {
      const result = await walk(mine, limit);
      expect(
        result.walked.map((item) => item.id),
        `limit ${limit}`,
      ).toEqual(order);
      expect(result.pages, `limit ${limit}`).toBe(pages);
    }
    expect(expectOk<ExportPage>(await listExports(ctx, theirs.token))).toEqual({
      exports: [theirExport],
      next_cursor: null,
    });
  });

  it('is an empty first page for a user who never asked for one', async () => {
    const user = await registerUser(ctx.app);
    expect(expectOk<ExportPage>(await listExports(ctx, user.token))).toEqual({
      exports: [],
      next_cursor: null,
    });
  });

  it('refuses a limit out of range and a cursor it did not make with 422s', async () => {
    const user = await registerUser(ctx.app);
    await insertExport(user, { createdAt: '2026-01-02T00:00:00Z', status: 'expired' });
    await insertExport(user, { createdAt: '2026-01-01T00:00:00Z', status: 'expired' });
    expectValidationError(await listExports(ctx, user.token, '?limit=0'), {
      limit: ['The limit must be at least 1.'],
    });
    expectValidationError(await listExports(ctx, user.token, '?limit=101'), {
      limit: ['The limit may not be greater than 100.'],
    });
    const page = expectOk<ExportPage>(await listExports(ctx, user.token, '?limit=1'));
    const cursor = page.next_cursor ?? '';
    const [payload = '', signature = ''] = cursor.split('.');
    const forged = `${Buffer.from(JSON.stringify({ i: newId() })).toString('base64url')}.${signature}`;
    const activity = expectOk<{ next_cursor: string | null }>(
      await ctx.app.inject({ method: 'GET', url: '/v1/user/activity?limit=1', headers: bearer(user.token) }),
    );
    for (const bad of [
      'nonsense',
      `${payload}.AAAAAAAAAAAAAAAAAAAAAA`,
      forged,
      'x'.repeat(5000),
      // Another list's cursor is no cursor of this one.
      activity.next_cursor ?? 'missing',
    ]) {
      expectValidationError(await listExports(ctx, user.token, `?cursor=${encodeURIComponent(bad)}`), {
        cursor: ['The selected cursor is invalid.'],
      });
    }
    // Another user's cursor shows nothing of its owner's exports, and none of theirs past a point of mine.
    const other = await registerUser(ctx.app);
    await insertExport(other, { createdAt: '2026-01-01T00:00:00Z', status: 'expired' });
    expect(
      expectOk<ExportPage>(await listExports(ctx, other.token, `?cursor=${encodeURIComponent(cursor)}`)),
    ).toEqual({ exports: [], next_cursor: null });
  });

  it('is a 401 without a valid token', async () => {
    expectError(await ctx.app.inject({ method: 'GET', url: '/v1/user/export' }), 401, ...UNAUTHENTICATED);
    expectError(await listExports(ctx, 'not-a-token'), 401, ...UNAUTHENTICATED);
  });
});

describe.each(backends)('%s: a page of the export list is read on an index', (backend) => {
  const ctx = useRecordedApp(backend);
  let user: RegisteredUser;

  beforeAll(async () => {
    const users = await Promise.all(Array.from({ length: 4 }, () => registerUser(ctx.app)));
    user = users[0] as RegisteredUser;
    // A long-lived account's history: an export an hour, for 1000 hours, for each of four users.
    for (const owner of users) {
      await sql`
        INSERT INTO data_exports (id, user_id, status, locale, created_at)
        SELECT gen_random_uuid(), ${owner.id}::uuid, 'expired', 'en', now() - make_interval(hours => g)
        FROM generate_series(1, 1000) AS g`.execute(ctx.database.handle.db);
    }
    await sql`ANALYZE data_exports`.execute(ctx.database.handle.db);
  });

  it('descends the (user_id, created_at) index from the cursor: no scan, no sort of the whole list', async () => {
    const first = expectOk<ExportPage>(await listExports(ctx, user.token, '?limit=20'));
    expect(first.exports).toHaveLength(20);
    expect(first.next_cursor).toEqual(expect.any(String));
    for (const cursor of [undefined, first.next_cursor as string]) {
      ctx.recorder.reset();
      const query = `?limit=20${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      expect(expectOk<ExportPage>(await listExports(ctx, user.token, query)).exports).toHaveLength(20);
      const pages = ctx.recorder.statements.filter((statement) =>
        statement.sql.includes('from "data_exports"'),
      );
      expect(pages, 'one statement reads the page').toHaveLength(1);
      const page = pages[0];
      expect(page?.sql).not.toMatch(/offset/i);
      const plan = await ctx.database.handle.withSession(async (session) =>
        (await session.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${page?.sql}`, [...(page?.parameters ?? [])]))
          .map((row) => row['QUERY PLAN'])
          .join('\n'),
      );
      expect(plan).toMatch(/Index Scan Backward using data_exports_user_idx on data_exports/);
      expect(plan).not.toMatch(
        /Seq Scan on data_exports|Bitmap Heap Scan on data_exports|(^|->\s+)Sort\s+\(/m,
      );
      // From a cursor the index is entered at it; the first page starts at the newest.
      expect(/Index Cond: [^\n]*created_at <= /.test(plan), plan).toBe(cursor !== undefined);
    }
  });
});
