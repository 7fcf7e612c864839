import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserListCursorCodec } from '../../src/modules/users/list-cursor.js';
import { UserListRepo } from '../../src/modules/users/list-repo.js';
import { UserListService } from '../../src/modules/users/list-service.js';
import { backends, createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { QueryRecorder } from '../helpers/query-recorder.js';

describe.each(backends)('%s: a page of accounts user list is read on an index', (backend) => {
  let database: TestDatabase;
  const recorder = new QueryRecorder();
  let list: UserListService;

  beforeAll(async () => {
    database = await createTestDatabase(backend);
    const repo = new UserListRepo(database.handle.db.withPlugin(recorder));
    list = new UserListService(repo, new UserListCursorCodec(() => repo.cursorKey()));
    // Enough accounts that reading them all would cost more than an index does.
    await sql`
      INSERT INTO users (id, email, username, slug, gender, created_at, updated_at)
      SELECT gen_random_uuid(), 'person' || g || '@example.com', 'Person' || g, 'person-' || g, 0, now(), now()
      FROM generate_series(1, 2000) AS g`.execute(database.handle.db);
    await sql`ANALYZE users`.execute(database.handle.db);
  });
  afterAll(async () => {
    await database?.drop();
  });

  /** The plan of the one statement that read the page `request` asked for. */
  async function planOf(request: Parameters<UserListService['list']>[0]): Promise<string> {
    recorder.reset();
    await list.list(request);
    const pages = recorder.statements.filter((statement) => statement.sql.includes('from "users"'));
    expect(pages, 'one statement reads the page').toHaveLength(1);
    const page = pages[0];
    expect(page?.sql).not.toMatch(/offset/i);
    return database.handle.withSession(async (session) =>
      (await session.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${page?.sql}`, [...(page?.parameters ?? [])]))
        .map((row) => row['QUERY PLAN'])
        .join('\n'),
    );
  }

  it('walks the primary key without a query, from the cursor on', async () => {
    const first = await list.list({ limit: 20 });
    expect(first.next_cursor).toEqual(expect.any(String));
    for (const cursor of [undefined, first.next_cursor as string]) {
      const plan = await planOf({ limit: 20, cursor });
      expect(plan).toMatch(/Index Scan using users_pkey on users/);
      expect(plan).not.toMatch(/Seq Scan on users|(^|->\s+)Sort\s+\(/m);
      expect(/Index Cond: \(id > /.test(plan), plan).toBe(cursor !== undefined);
    }
  });

  it('finds a rare prefix of an email, username or slug on the text_pattern_ops indexes', async () => {
    // A prefix most accounts share is read along the primary key until the page is full (the planner's
    // choice, and a cheap one); a rare one must not walk the whole table that way.
    const plan = await planOf({ query: 'Person1234', limit: 20 });
    expect(plan).not.toMatch(/Seq Scan on users/);
    // Under the C collation (PGlite's) the unique lower(x) index serves a prefix as well; under any other only
    // the text_pattern_ops one does.
    for (const column of ['email', 'username', 'slug']) {
      expect(plan).toMatch(new RegExp(`Bitmap Index Scan on users_${column}_lower_(prefix_idx|key)\\s`));
    }
    expect(plan).not.toMatch(/users_pkey/);
  });

  it('finds an id prefix on the primary key', async () => {
    const plan = await planOf({ query: '0193abcd-12', limit: 20 });
    expect(plan).not.toMatch(/Seq Scan on users/);
    expect(plan).toMatch(/Bitmap Index Scan on users_pkey/);
    expect(plan).toMatch(/Bitmap Index Scan on users_email_lower_(prefix_idx|key)\s/);
  });
});
