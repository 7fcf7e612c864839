import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import { Precompiled, rawStatement } from '../../src/db/precompiled.js';
import { PreparingPool } from '../../src/db/prepared-statements.js';
import type { Executor } from '../../src/db/transaction.js';
import { backends, createTestDatabase, type TestDatabase } from '../helpers/database.js';

/** A hot query as the repos write one: every column of the row (a migration may add one). */
const USER_BY_SLUG = new Precompiled(1, (db: Executor, slug: string) =>
  db.selectFrom('users').selectAll().where('slug', '=', slug),
);

/** A raw statement (the sign-in event's form), one input read in two places. */
const USERNAME_BY_EITHER_SLUG = Precompiled.named((db: Executor, { slug }: { slug: string }) =>
  rawStatement(
    db,
    sql<{
      username: string;
    }>`SELECT username FROM users WHERE slug = ${slug} OR lower(slug) = lower(${slug})`,
  ),
);

/**
 * A precompiled query runs as a named statement (db/prepared-statements.ts), on a PostgreSQL server and on
 * the embedded PGlite (db/pglite-worker.mjs): parsed and planned once per connection.
 */
describe.each(backends)('%s: hot queries as named statements', (backend) => {
  const onServer = backend === 'postgres';
  let database: TestDatabase;
  /** One connection, so that the session's prepared statements are the ones this test looks at. */
  let single: DatabaseHandle;
  /**
   * DATABASE_PREPARED_STATEMENTS=false: the same database on a server; on PGlite (one connection, one
   * handle per database) a database of its own with the same row.
   */
  let unprepared: DatabaseHandle;

  beforeAll(async () => {
    database = await createTestDatabase(backend);
    single = onServer
      ? await openDatabase({ url: database.url, embeddedDir: '', poolMax: 1 })
      : database.handle;
    unprepared = await openDatabase({
      url: database.url,
      embeddedDir: onServer ? '' : 'memory://',
      poolMax: 1,
      preparedStatements: false,
    });
    if (!onServer) await migrate(unprepared);
    for (const handle of onServer ? [single] : [single, unprepared]) {
      await sql`INSERT INTO users (id, email, username, username_skeleton, slug, gender)
                VALUES (gen_random_uuid(), 'p@example.com', 'prepared', 'prepared', 'prepared-slug', 0)`.execute(
        handle.db,
      );
    }
  });

  afterAll(async () => {
    if (onServer) await single?.close();
    await unprepared?.close();
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

  it('prepares a raw `sql` statement the same way, with each input bound wherever it is read', async () => {
    for (const slug of ['prepared-slug', 'PREPARED-SLUG', 'prepared-slug']) {
      const rows = await USERNAME_BY_EITHER_SLUG.execute(single.db, { slug });
      expect(rows).toEqual([{ username: 'prepared' }]);
    }
    expect(await USERNAME_BY_EITHER_SLUG.execute(single.db, { slug: 'other-slug' })).toEqual([]);
    const prepared = await preparedOn(single);
    expect(prepared.filter((statement) => statement.includes('lower(slug) = lower($2)'))).toHaveLength(1);
  });

  it('prepares nothing when turned off (DATABASE_PREPARED_STATEMENTS=false)', async () => {
    expect(await USER_BY_SLUG.execute(unprepared.db, 'prepared-slug')).toHaveLength(1);
    expect(await preparedOn(unprepared)).toEqual([]);
  });

  it('keeps answering after a migration adds a column under a prepared `users.*`', async () => {
    await USER_BY_SLUG.execute(single.db, 'prepared-slug');
    // Another instance of a rolling deploy migrates the schema under this one's prepared statement (PGlite
    // has one connection: the migration runs on it).
    await sql`ALTER TABLE users ADD COLUMN added_by_a_later_release integer`.execute(
      onServer ? unprepared.db : single.db,
    );
    const [row] = await USER_BY_SLUG.execute(single.db, 'prepared-slug');
    expect(row?.username).toBe('prepared');
    expect(row).toHaveProperty('added_by_a_later_release', null);
  });
});

/**
 * Kysely keeps a connection object of its own for every distinct client object a pool hands it. A fresh
 * wrapper per checkout made that bookkeeping (and its weak tables' entries, which live until a full
 * collection) a per-query cost; the pool hands out one wrapper per server connection instead.
 */
describe.runIf(backends.includes('postgres'))('PreparingPool checkouts', () => {
  let database: TestDatabase;
  let pool: pg.Pool;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    pool = new pg.Pool({ connectionString: database.url, max: 2 });
  });

  afterAll(async () => {
    await pool?.end();
    await database?.drop();
  });

  it('hands out the same client for the same connection, and different ones for different connections', async () => {
    const preparing = new PreparingPool(pool);
    const first = await preparing.connect();
    const second = await preparing.connect();
    expect(second).not.toBe(first);
    const backendPid = async (client: typeof first) =>
      (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid', [])).rows[0]?.pid;
    const pids = [await backendPid(first), await backendPid(second)];
    first.release();
    second.release();
    const again = [await preparing.connect(), await preparing.connect()];
    // pg's pool reuses its two idle connections; each comes back as the wrapper it had.
    expect(again[0] === first || again[0] === second).toBe(true);
    expect(again[1] === first || again[1] === second).toBe(true);
    expect(again[1]).not.toBe(again[0]);
    for (const client of again) {
      expect(pids).toContain(await backendPid(client));
      client.release();
    }
  });
});
