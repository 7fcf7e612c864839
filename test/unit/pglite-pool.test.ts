import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase } from '../../src/db/client.js';
import { isConnectionError } from '../../src/db/errors.js';
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
});
