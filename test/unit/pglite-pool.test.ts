import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type DatabaseHandle, openDatabase } from '../../src/db/client.js';
import { isConnectionError } from '../../src/db/errors.js';
import { PGlitePool } from '../../src/db/pglite-pool.js';
import { BUILT_TEMPLATE } from '../../src/db/pglite-template.js';
import { PGliteThread } from '../../src/db/pglite-thread.js';
import { writeTransaction } from '../../src/db/transaction.js';
import { ServiceUnavailableError } from '../../src/errors.js';

describe('the embedded pool', () => {
  let database: DatabaseHandle;

  // Opened in the hook: starting PGlite on a busy machine must not eat into a test's own time.
  beforeAll(async () => {
    database = await openDatabase({
      url: undefined,
      embeddedDir: 'memory://',
      timeouts: { acquireTimeoutMs: 200 },
    });
  });

  afterAll(async () => {
    await database?.close();
  });

  it('fails a nested use of its one connection inside a transaction, as unavailable, instead of hanging', async () => {
    const nested = writeTransaction(database.db, async (trx) => {
      await sql`SELECT 1`.execute(trx);
      // A mistake: the pool instead of the transaction. Its connection is the one this transaction holds.
      await sql`SELECT 2`.execute(database.db);
    });
    const error = await nested.then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(isConnectionError((error as Error).cause)).toBe(true);
    // The connection is free again for everyone else.
    const { rows } = await sql<{ one: number }>`SELECT 1 AS one`.execute(database.db);
    expect(rows).toEqual([{ one: 1 }]);
  });

  it('pipelines single statements: each goes to the thread without waiting for the answers before it', async () => {
    const thread = await PGliteThread.open('memory://', BUILT_TEMPLATE);
    try {
      const pool = new PGlitePool(thread, 200);
      const clients = await Promise.all([1, 2, 3, 4, 5].map(() => pool.connect()));
      const answers = clients.map((client, i) => client.query('SELECT pg_sleep(0.05), $1::int AS n', [i]));
      // Held one at a time, the second would still be waiting for the first's answer.
      await new Promise<void>((resolve) => setImmediate(resolve));
      expect(thread.inFlight).toBe(5);
      expect(pool.stats()).toEqual({ total: 1, inUse: 1, waiting: 0 });
      const rows = (await Promise.all(answers)).map((answer) => (answer.rows[0] as { n: number }).n);
      expect(rows).toEqual([0, 1, 2, 3, 4]);
      for (const client of clients) client.release();
      expect(pool.stats()).toEqual({ total: 1, inUse: 0, waiting: 0 });
    } finally {
      await thread.close();
    }
  });

  it('keeps other requests out of an open transaction: a statement waits for it, and is not rolled back with it', async () => {
    await sql`CREATE TABLE IF NOT EXISTS marks_waiting (n int)`.execute(database.db);
    let opened!: () => void;
    const isOpen = new Promise<void>((resolve) => {
      opened = resolve;
    });
    let finish!: () => void;
    const finishing = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const transaction = database.db
      .transaction()
      .execute(async (trx) => {
        await sql`INSERT INTO marks_waiting VALUES (1)`.execute(trx);
        opened();
        await finishing;
        throw new Error('rolled back on purpose');
      })
      .catch((error: unknown) => error);
    await isOpen;
    const outside = sql`INSERT INTO marks_waiting VALUES (2)`.execute(database.db);
    // The statement reaches the pool's queue after Kysely's own steps: wait for it there, not for a tick.
    await vi.waitFor(() => expect(database.poolStats()).toEqual({ total: 1, inUse: 1, waiting: 1 }));
    finish();
    expect(await transaction).toEqual(new Error('rolled back on purpose'));
    await outside;
    const { rows } = await sql<{ n: number }>`SELECT n FROM marks_waiting ORDER BY n`.execute(database.db);
    expect(rows).toEqual([{ n: 2 }]);
  });

  it('runs the statements sent before a transaction first, outside it', async () => {
    await sql`CREATE TABLE IF NOT EXISTS marks_before (n int)`.execute(database.db);
    const before = [1, 2, 3, 4, 5].map((n) =>
      sql`INSERT INTO marks_before VALUES (${n})`.execute(database.db),
    );
    const transaction = database.db
      .transaction()
      .execute(async (trx) => {
        await sql`INSERT INTO marks_before VALUES (6)`.execute(trx);
        throw new Error('rolled back on purpose');
      })
      .catch((error: unknown) => error);
    await Promise.all(before);
    expect(await transaction).toEqual(new Error('rolled back on purpose'));
    const { rows } = await sql<{ n: number }>`SELECT n FROM marks_before ORDER BY n`.execute(database.db);
    expect(rows.map((row) => row.n)).toEqual([1, 2, 3, 4, 5]);
  });

  it('gives up on a turn that never comes, never sends that statement, and the queue moves on', async () => {
    const thread = await PGliteThread.open('memory://', BUILT_TEMPLATE);
    try {
      await thread.exec('CREATE TABLE late (n int)');
      const pool = new PGlitePool(thread, 100);
      const release = await pool.acquire();
      const client = await pool.connect();
      const waited = client.query('INSERT INTO late VALUES (1)', []).then(
        () => 'answered',
        (error: unknown) => (error as Error).name,
      );
      expect(await waited).toBe('PoolTimeoutError');
      expect(pool.stats()).toEqual({ total: 1, inUse: 1, waiting: 0 });
      const next = (await pool.connect()).query('SELECT count(*)::int AS rows FROM late', []);
      release();
      expect((await next).rows).toEqual([{ rows: 0 }]);
    } finally {
      await thread.close();
    }
  });
});
