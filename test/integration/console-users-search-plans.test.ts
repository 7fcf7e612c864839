import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleUserSearch, type SearchRequest } from '../../src/account/console-users/search.js';
import { StaffGate } from '../../src/account/console-users/staff-access.js';
import { UserSearchCursorCodec } from '../../src/modules/users/search-cursor.js';
import { UserSearchRepo } from '../../src/modules/users/search-repo.js';
import { RecordingAccess, staff } from '../helpers/console-users.js';
import { backends, createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { QueryRecorder } from '../helpers/query-recorder.js';

describe.each(backends)('%s: every console user search is read on an index', (backend) => {
  let database: TestDatabase;
  const recorder = new QueryRecorder();
  let search: ConsoleUserSearch;

  beforeAll(async () => {
    database = await createTestDatabase(backend);
    const repo = new UserSearchRepo(database.handle.db.withPlugin(recorder));
    const cursors = new UserSearchCursorCodec(() => repo.cursorKey());
    search = new ConsoleUserSearch(repo, cursors, new StaffGate(new RecordingAccess()));
    // Enough accounts that reading them all would cost more than an index does.
    await sql`
      INSERT INTO users (id, email, username, slug, phone, gender, created_at, updated_at)
      SELECT gen_random_uuid(), 'person' || g || '@example.com', 'Person' || g, 'person-' || g,
        '+8210' || lpad(g::text, 8, '0'), 0, now(), now()
      FROM generate_series(1, 2000) AS g`.execute(database.handle.db);
    await sql`ANALYZE users`.execute(database.handle.db);
  });
  afterAll(async () => {
    await database?.drop();
  });

  /** The plan of the one statement that read the page `request` asked for. */
  async function planOf(request: SearchRequest): Promise<string> {
    recorder.reset();
    await search.search(staff('viewer'), request);
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

  it.each(['email', 'username', 'slug'])(
    'a %s prefix walks its text_pattern_ops index in order, no sort',
    async (field) => {
      // A prefix every account shares: the page is still the index's first rows, never the whole range sorted.
      const first = await search.search(staff('viewer'), {
        field,
        mode: 'prefix',
        query: 'person',
        limit: 20,
      });
      for (const cursor of [undefined, first.next_cursor as string]) {
        const plan = await planOf({ field, mode: 'prefix', query: 'person', limit: 20, cursor });
        expect(plan).toMatch(new RegExp(`Index Scan using users_${field}_lower_prefix_idx on users`));
        expect(plan).not.toMatch(/Seq Scan|Sort\s+\(/);
      }
    },
  );

  it.each(['email', 'username', 'slug'])('an exact %s is one probe of its unique index', async (field) => {
    const plan = await planOf({ field, mode: 'exact', query: 'Person77' });
    expect(plan).toMatch(new RegExp(`Index Scan using users_${field}_lower_(key|prefix_idx) on users`));
    expect(plan).not.toMatch(/Seq Scan/);
  });

  it('an id, exact or a prefix, is a range of the primary key', async () => {
    for (const request of [
      { field: 'id', mode: 'exact', query: '0193abcd-1234-7000-8000-000000000001' },
      { field: 'id', mode: 'prefix', query: '0193abcd-12' },
    ]) {
      const plan = await planOf(request);
      expect(plan).toMatch(/Index (Only )?Scan using users_pkey on users/);
      expect(plan).not.toMatch(/Seq Scan|Sort\s+\(/);
    }
  });

  it('a phone, exact or a prefix, as typed, walks its text_pattern_ops index in order, no sort', async () => {
    // A prefix every account shares, then its second page; an exact number, which two accounts may hold.
    const first = await search.search(staff('viewer'), {
      field: 'phone',
      mode: 'prefix',
      query: '010-',
      limit: 20,
    });
    for (const request of [
      { field: 'phone', mode: 'prefix', query: '010-', limit: 20 },
      { field: 'phone', mode: 'prefix', query: '010-', limit: 20, cursor: first.next_cursor as string },
      { field: 'phone', mode: 'exact', query: '010-0000-0077' },
    ]) {
      const plan = await planOf(request);
      expect(plan).toMatch(/Index Scan using users_phone_prefix_idx on users/);
      expect(plan).not.toMatch(/Seq Scan|Sort\s+\(/);
    }
  });
});
