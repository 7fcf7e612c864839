import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Kysely, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase } from '../../src/db/client.js';
import { loadMigrations, migrate } from '../../src/db/migrate.js';
import type { Database } from '../../src/db/schema.js';
import { backends, type TestDatabase, useTestDatabase } from '../helpers/database.js';

async function rowsOf(db: Kysely<Database>, query: string): Promise<unknown[]> {
  return (await sql.raw(query).execute(db)).rows;
}

describe('loadMigrations', () => {
  it('reads NNNN_name.sql files in order and ignores everything else', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'accounts-migrations-'));
    try {
      await writeFile(path.join(dir, '0002_second.sql'), 'SELECT 2;');
      await writeFile(path.join(dir, '0001_first.sql'), 'SELECT 1;');
      await writeFile(path.join(dir, '0010_tenth.sql'), 'SELECT 10;');
      for (const ignored of [
        'README.md',
        '1_short.sql',
        '0003_Upper.sql',
        '0004_dash-name.sql',
        '0005_x.sql.bak',
      ]) {
        await writeFile(path.join(dir, ignored), 'SELECT 0;');
      }
      expect(await loadMigrations(dir)).toEqual([
        { version: '0001_first', sql: 'SELECT 1;' },
        { version: '0002_second', sql: 'SELECT 2;' },
        { version: '0010_tenth', sql: 'SELECT 10;' },
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('finds the service’s own migrations', async () => {
    const versions = (await loadMigrations()).map((migration) => migration.version);
    expect(versions[0]).toBe('0001_users_and_tokens');
    expect([...versions].sort()).toEqual(versions);
  });
});

describe.each(backends)('%s: migrate', (backend) => {
  const ctx = useTestDatabase(backend, { migrate: false });

  it('applies every migration once, then nothing', async () => {
    const all = (await loadMigrations()).map((migration) => migration.version);
    expect(await migrate(ctx.handle)).toEqual(all);
    expect(await migrate(ctx.handle)).toEqual([]);
    const applied = await rowsOf(ctx.db, 'SELECT version FROM schema_migrations ORDER BY version');
    expect(applied).toEqual(all.map((version) => ({ version })));
  });

  it('creates the case-insensitive unique indexes and the token indexes', async () => {
    const indexes = (await rowsOf(
      ctx.db,
      "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename IN ('users', 'api_tokens') ORDER BY indexname",
    )) as Array<{ indexname: string }>;
    expect(indexes.map((row) => row.indexname)).toEqual(
      expect.arrayContaining([
        'users_email_lower_key',
        'users_username_lower_key',
        'users_slug_lower_key',
        'api_tokens_token_hash_key',
        'api_tokens_user_id_idx',
      ]),
    );
  });

  it('rolls back a failing migration whole and names it, keeping the ones before it', async () => {
    const error = await migrate(ctx.handle, [
      { version: '9001_good', sql: 'CREATE TABLE test_good (x int);' },
      { version: '9002_bad', sql: 'CREATE TABLE test_half (x int); SELECT * FROM no_such_table;' },
    ]).then(
      () => undefined,
      (caught: Error) => caught,
    );
    expect(error?.message).toMatch(/^Migration 9002_bad failed: .*no_such_table/);
    const tables = (await rowsOf(
      ctx.db,
      "SELECT tablename FROM pg_tables WHERE tablename IN ('test_good', 'test_half')",
    )) as Array<{ tablename: string }>;
    expect(tables.map((row) => row.tablename)).toEqual(['test_good']);
    const versions = (await rowsOf(
      ctx.db,
      "SELECT version FROM schema_migrations WHERE version LIKE '900%'",
    )) as Array<{
      version: string;
    }>;
    expect(versions.map((row) => row.version)).toEqual(['9001_good']);
    // The advisory lock was released: the next run goes ahead.
    expect(
      await migrate(ctx.handle, [{ version: '9002_bad', sql: 'CREATE TABLE test_half (x int);' }]),
    ).toEqual(['9002_bad']);
  });

  it('migrates exactly once when several runs start together', async () => {
    const migrations = [{ version: '9100_once', sql: 'CREATE TABLE test_once (x int);' }];
    const others =
      backend === 'postgres'
        ? await Promise.all([1, 2].map(() => createTestDatabaseOn(ctx.database)))
        : [ctx.handle, ctx.handle];
    try {
      const results = await Promise.all([ctx.handle, ...others].map((handle) => migrate(handle, migrations)));
      expect(results.flat()).toEqual(['9100_once']);
    } finally {
      if (backend === 'postgres') await Promise.all(others.map((handle) => handle.close()));
    }
  });
});

/** Another connection pool on the same PostgreSQL database, as a second instance of the service would have. */
async function createTestDatabaseOn(database: TestDatabase): Promise<DatabaseHandle> {
  return openDatabase({ url: database.url, embeddedDir: '', poolMax: 2 });
}

/**
 * 0033 keeps on each account the document versions it agreed to: written from the records already there,
 * then by a trigger on every record after.
 */
describe.each(backends)('%s: the agreed versions on the account row', (backend) => {
  const ctx = useTestDatabase(backend, { migrate: false });
  const agreedOf = async (id: string) =>
    (
      (await rowsOf(ctx.db, `SELECT agreed_consents FROM users WHERE id = '${id}'`))[0] as {
        agreed_consents: Record<string, number[]>;
      }
    ).agreed_consents;
  const record = (id: string, key: string, version: number, agreed: boolean) =>
    sql`INSERT INTO consent_records (user_id, key, version, agreed, channel)
      VALUES (${id}, ${key}, ${version}, ${agreed}, 'update')`.execute(ctx.db);

  it('fills in what was agreed before it, then adds each agreement once and keeps withdrawn ones', async () => {
    const all = await loadMigrations();
    const at = all.findIndex((migration) => migration.version.startsWith('0033_'));
    await migrate(ctx.handle, all.slice(0, at));
    const [agreed, never] = ['0190a7c0-0000-7000-8000-000000000001', '0190a7c0-0000-7000-8000-000000000002'];
    for (const [id, name] of [
      [agreed, 'agreed'],
      [never, 'never'],
    ]) {
      await sql`INSERT INTO users (id, email, username, slug, gender, created_at, updated_at)
        VALUES (${id}, ${`${name}@example.com`}, ${name}, ${name}, 0, now(), now())`.execute(ctx.db);
    }
    await sql`INSERT INTO consent_document_versions (key, version, texts) VALUES ('terms', 2, '{}')`.execute(
      ctx.db,
    );
    await record(agreed, 'terms', 1, true);
    await record(agreed, 'terms', 1, true);
    await record(agreed, 'marketing_email', 1, true);
    await record(agreed, 'marketing_email', 1, false);
    await record(never, 'marketing_email', 1, false);
    await migrate(ctx.handle, all.slice(at));
    expect(await agreedOf(agreed)).toEqual({ terms: [1], marketing_email: [1] });
    expect(await agreedOf(never)).toEqual({});
    await record(agreed, 'terms', 2, true);
    await record(agreed, 'terms', 2, true);
    await record(never, 'terms', 2, false);
    expect(await agreedOf(agreed)).toEqual({ terms: [1, 2], marketing_email: [1] });
    expect(await agreedOf(never)).toEqual({});
  });
});

/**
 * 0034 keeps only waiting deliveries in the queue; each attempt says which try it was and how it ended, as
 * the delivery rows it belonged to did.
 */
describe.each(backends)('%s: the webhook queue and its attempts', (backend) => {
  const ctx = useTestDatabase(backend, { migrate: false });

  it('keeps the waiting deliveries and gives every earlier attempt its try and outcome', async () => {
    const all = await loadMigrations();
    const at = all.findIndex((migration) => migration.version.startsWith('0034_'));
    await migrate(ctx.handle, all.slice(0, at));
    const endpoint = '0190a7c0-0000-7000-8000-0000000000e1';
    const [waiting, delivered, failed] = [
      '0190a7c0-0000-7000-8000-000000000001',
      '0190a7c0-0000-7000-8000-000000000002',
      '0190a7c0-0000-7000-8000-000000000003',
    ];
    await sql`INSERT INTO webhook_endpoints (id, url, secret) VALUES (${endpoint}, 'https://example.com/h', 's')`.execute(
      ctx.db,
    );
    for (const [id, status, attempts] of [
      [waiting, 'pending', 1],
      [delivered, 'delivered', 2],
      [failed, 'failed', 1],
    ] as const) {
      await sql`INSERT INTO account_events (id, type, data, dispatched_at) VALUES (${id}, 'user.deleted', '{}', now())`.execute(
        ctx.db,
      );
      await sql`INSERT INTO webhook_deliveries (event_id, endpoint_id, status, attempts)
        VALUES (${id}, ${endpoint}, ${status}, ${attempts})`.execute(ctx.db);
    }
    const attempt = (id: string, code: number | null, next: boolean) =>
      sql`INSERT INTO webhook_attempts (event_id, endpoint_id, status_code, error, next_attempt_at)
        VALUES (${id}, ${endpoint}, ${code}, ${code === null ? 'ECONNREFUSED' : null},
          ${next ? sql`now()` : null})`.execute(ctx.db);
    await attempt(waiting, 503, true);
    await attempt(delivered, 503, true);
    await attempt(delivered, 204, false);
    await attempt(failed, null, false);

    // A disabled endpoint's waiting delivery is parked.
    const disabled = '0190a7c0-0000-7000-8000-0000000000e2';
    await sql`INSERT INTO webhook_endpoints (id, url, secret, disabled_at)
      VALUES (${disabled}, 'https://example.com/d', 's', now())`.execute(ctx.db);
    await sql`INSERT INTO webhook_deliveries (event_id, endpoint_id) VALUES (${waiting}, ${disabled})`.execute(
      ctx.db,
    );

    await migrate(ctx.handle, all.slice(at));
    expect(
      await rowsOf(
        ctx.db,
        `SELECT event_id, endpoint_id, attempts, next_attempt_at = 'infinity' AS parked
        FROM webhook_deliveries ORDER BY endpoint_id`,
      ),
    ).toEqual([
      { event_id: waiting, endpoint_id: endpoint, attempts: 1, parked: false },
      { event_id: waiting, endpoint_id: disabled, attempts: 0, parked: true },
    ]);
    expect(
      await rowsOf(
        ctx.db,
        'SELECT event_id, attempt, outcome, status_code FROM webhook_attempts ORDER BY id',
      ),
    ).toEqual([
      { event_id: waiting, attempt: 1, outcome: 'retry', status_code: 503 },
      { event_id: delivered, attempt: 1, outcome: 'retry', status_code: 503 },
      { event_id: delivered, attempt: 2, outcome: 'delivered', status_code: 204 },
      { event_id: failed, attempt: 1, outcome: 'failed', status_code: null },
    ]);
  });
});
