import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { isConnectionError } from '../../src/db/errors.js';
import { writeTransaction } from '../../src/db/transaction.js';
import { ServiceUnavailableError } from '../../src/errors.js';

describe('the embedded pool', () => {
  it('fails a nested use of its one connection inside a transaction, as unavailable, instead of hanging', async () => {
    const database = await openDatabase({
      url: undefined,
      embeddedDir: 'memory://',
      timeouts: { acquireTimeoutMs: 200 },
    });
    try {
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
    } finally {
      await database.close();
    }
  });

  it('serves waiters in turn when each is within the bound', async () => {
    const database = await openDatabase({
      url: undefined,
      embeddedDir: 'memory://',
      timeouts: { acquireTimeoutMs: 5_000 },
    });
    try {
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => sql<{ n: number }>`SELECT ${i}::int AS n`.execute(database.db)),
      );
      expect(results.map((result) => result.rows[0]?.n)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    } finally {
      await database.close();
    }
  });
});
