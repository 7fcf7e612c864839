import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isConnectionError, isUniqueViolation, violatedConstraint } from '../../src/db/errors.js';
import { BUILT_TEMPLATE } from '../../src/db/pglite-template.js';
import { PGliteThread } from '../../src/db/pglite-thread.js';

describe('the embedded database on its own thread', () => {
  const opened: PGliteThread[] = [];
  // A copy of the build's template: what is tested here is the thread, not initdb (the last test's subject).
  const open = async () => {
    const thread = await PGliteThread.open('memory://', BUILT_TEMPLATE);
    opened.push(thread);
    return thread;
  };
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((thread) => thread.close()));
  });

  it('runs a statement beside the event loop, not on it', async () => {
    const db = await open();
    const order: string[] = [];
    const slow = db.query('SELECT pg_sleep(0.3)').then(() => order.push('statement'));
    // On the event loop's own thread the statement would run to its end before this callback could.
    await new Promise<void>((resolve) => setImmediate(resolve));
    order.push('event loop');
    await slow;
    expect(order).toEqual(['event loop', 'statement']);
  });

  it('returns rows, typed values, bytes and the command as PGlite does', async () => {
    const db = await open();
    await db.exec('CREATE TABLE t (id int PRIMARY KEY, at timestamptz, raw bytea, doc jsonb)');
    const inserted = await db.query('INSERT INTO t VALUES ($1, $2, $3, $4)', [
      1,
      new Date('2026-11-24T00:00:00Z'),
      Buffer.from([0, 255]),
      JSON.stringify({ a: [1] }),
    ]);
    expect(inserted.affectedRows).toBe(1);
    const { rows } = await db.query<{ id: number; at: Date; raw: Uint8Array; doc: unknown }>(
      'SELECT * FROM t',
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]?.at).toEqual(new Date('2026-11-24T00:00:00Z'));
    expect([...(rows[0]?.raw ?? [])]).toEqual([0, 255]);
    expect(rows[0]?.doc).toEqual({ a: [1] });
  });

  it('hands on the SQLSTATE and the constraint of a failed statement', async () => {
    const db = await open();
    await db.exec('CREATE TABLE u (name text CONSTRAINT u_name_key UNIQUE)');
    await db.query('INSERT INTO u VALUES ($1)', ['kim']);
    const error = await db.query('INSERT INTO u VALUES ($1)', ['kim']).catch((caught: unknown) => caught);
    expect(isUniqueViolation(error)).toBe(true);
    expect(violatedConstraint(error)).toBe('u_name_key');
    expect(error).toBeInstanceOf(Error);
  });

  it('runs a named statement as it runs the same SQL unnamed, and prepares it once', async () => {
    const db = await open();
    await db.exec('CREATE TABLE t (id int PRIMARY KEY, at timestamptz, raw bytea, doc jsonb, note text)');
    const insert = 'INSERT INTO t VALUES ($1, $2, $3, $4, $5)';
    const values = (id: number) => [
      id,
      new Date('2026-11-24T00:00:00Z'),
      Buffer.from([0, 255]),
      '{"a":[1]}',
      null,
    ];
    const named = await db.query(insert, values(1), 'insert_t');
    const unnamed = await db.query(insert, values(2));
    expect(named).toEqual(unnamed);
    expect(named.affectedRows).toBe(1);
    const select = 'SELECT at, raw, doc, note FROM t WHERE id = $1';
    for (let i = 0; i < 3; i++) {
      expect(await db.query(select, [1], 'select_t')).toEqual(await db.query(select, [2]));
    }
    const { rows } = await db.query<{ at: Date; doc: unknown; note: null }>(select, [1], 'select_t');
    expect(rows).toEqual([
      { at: new Date('2026-11-24T00:00:00Z'), raw: expect.anything(), doc: { a: [1] }, note: null },
    ]);
    const prepared = await db.query<{ statement: string }>('SELECT statement FROM pg_prepared_statements');
    expect(prepared.rows.map((row) => row.statement).sort()).toEqual([insert, select].sort());
  });

  it('hands on the SQLSTATE of a named statement, and the connection and its transaction go on as after any error', async () => {
    const db = await open();
    await db.exec('CREATE TABLE u (name text CONSTRAINT u_name_key UNIQUE)');
    const insert = 'INSERT INTO u VALUES ($1)';
    await db.query(insert, ['kim'], 'insert_u');
    const error = await db.query(insert, ['kim'], 'insert_u').catch((caught: unknown) => caught);
    expect(isUniqueViolation(error)).toBe(true);
    expect(violatedConstraint(error)).toBe('u_name_key');
    await db.query('BEGIN');
    await db.query(insert, ['lee'], 'insert_u');
    await expect(db.query(insert, ['kim'], 'insert_u')).rejects.toBeInstanceOf(Error);
    await db.query('ROLLBACK');
    await db.query(insert, ['park'], 'insert_u');
    const { rows } = await db.query<{ name: string }>('SELECT name FROM u ORDER BY name');
    expect(rows.map((row) => row.name)).toEqual(['kim', 'park']);
  });

  it('answers a lost connection once closed, and refuses a data directory it cannot open', async () => {
    const db = await PGliteThread.open('memory://', BUILT_TEMPLATE);
    await db.close();
    const afterClose = await db.query('SELECT 1').catch((caught: unknown) => caught);
    expect(isConnectionError(afterClose)).toBe(true);
    await expect(PGliteThread.open('/proc/no-such-directory/pglite')).rejects.toThrow(
      /the embedded database could not be created in \/proc\/no-such-directory\/pglite/,
    );
  });

  it('creates a new data directory, keeps what was written across a reopen, and runs with small buffers', async () => {
    const parent = await mkdtemp(path.join(tmpdir(), 'pglite-thread-'));
    const dir = path.join(parent, 'pglite');
    try {
      const first = await PGliteThread.open(dir);
      expect(existsSync(path.join(dir, 'PG_VERSION'))).toBe(true);
      await first.exec('CREATE TABLE kept (value text); INSERT INTO kept VALUES ($$written$$)');
      await first.close();
      const again = await PGliteThread.open(dir);
      try {
        expect((await again.query('SELECT value FROM kept')).rows).toEqual([{ value: 'written' }]);
        const settings = await again.query<{ name: string; setting: string; unit: string }>(
          `SELECT name, setting, unit FROM pg_settings
            WHERE name IN ('shared_buffers', 'wal_buffers', 'min_wal_size', 'max_wal_size', 'work_mem')
            ORDER BY name`,
        );
        // shared_buffers and wal_buffers count 8 kB pages.
        expect(settings.rows).toEqual([
          { name: 'max_wal_size', setting: '64', unit: 'MB' },
          { name: 'min_wal_size', setting: '32', unit: 'MB' },
          { name: 'shared_buffers', setting: '2048', unit: '8kB' },
          { name: 'wal_buffers', setting: '128', unit: '8kB' },
          { name: 'work_mem', setting: '2048', unit: 'kB' },
        ]);
        // PGlite's own settings are kept beside ours.
        expect((await again.query('SHOW search_path')).rows).toEqual([{ search_path: 'public' }]);
      } finally {
        await again.close();
      }
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
    // initdb twice the time of a start from the template, and more on a loaded machine.
  }, 90_000);
});
