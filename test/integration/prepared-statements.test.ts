import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase } from '../../src/db/client.js';
import { Precompiled } from '../../src/db/precompiled.js';
import type { Executor } from '../../src/db/transaction.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

/** Runs only against a PostgreSQL server: PGlite has no network protocol, and nothing is prepared there. */
const onServer = process.env.DATABASE_URL ? describe : describe.skip;

/** A hot query as the repos write one: every column of the row (a migration may add one). */
const USER_BY_SLUG = new Precompiled(1, (db: Executor, slug: string) =>
  db.selectFrom('users').selectAll().where('slug', '=', slug),
);

onServer('postgres: hot queries as named statements', () => {
  let database: TestDatabase;
  /** One connection, so that the session's prepared statements are the ones this test looks at. */
  let single: DatabaseHandle;
  let other: DatabaseHandle;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    single = await openDatabase({ url: database.url, embeddedDir: '', poolMax: 1 });
    other = await openDatabase({ url: database.url, embeddedDir: '', poolMax: 1, preparedStatements: false });
    await sql`INSERT INTO users (id, email, username, username_skeleton, slug, gender)
              VALUES (gen_random_uuid(), 'p@example.com', 'prepared', 'prepared', 'prepared-slug', 0)`.execute(
      single.db,
    );
  });

  afterAll(async () => {
    await single?.close();
    await other?.close();
    await database?.drop();
  });

  const preparedOn = async (handle: DatabaseHandle) =>
    (
      await sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements`.execute(handle.db)
    ).rows.map((row) => row.statement);

  it('prepares a precompiled query once per connection and runs it by name after that', async () => {
    for (let i = 0; i < 3; i++) {
      const rows = await USER_BY_SLUG.execute(single.db, 'prepared-slug');
      expect(rows.map((row) => row.username)).toEqual(['prepared']);
    }
    const prepared = await preparedOn(single);
    expect(prepared.filter((statement) => statement.includes('"slug" = $1'))).toHaveLength(1);
  });

  it('prepares nothing when turned off (DATABASE_PREPARED_STATEMENTS=false)', async () => {
    expect(await USER_BY_SLUG.execute(other.db, 'prepared-slug')).toHaveLength(1);
    expect(await preparedOn(other)).toEqual([]);
  });

  it('keeps answering after a migration adds a column under a prepared `users.*`', async () => {
    await USER_BY_SLUG.execute(single.db, 'prepared-slug');
    // Another instance of a rolling deploy migrates the schema under this one's prepared statement.
    await sql`ALTER TABLE users ADD COLUMN added_by_a_later_release integer`.execute(other.db);
    const [row] = await USER_BY_SLUG.execute(single.db, 'prepared-slug');
    expect(row?.username).toBe('prepared');
    expect(row).toHaveProperty('added_by_a_later_release', null);
  });
});
