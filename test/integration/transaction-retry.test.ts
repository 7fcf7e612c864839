import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { TRANSACTION_ATTEMPTS, writeTransaction } from '../../src/db/transaction.js';
import { CommitFailedError } from '../../src/errors.js';
import { backends, useTestDatabase } from '../helpers/database.js';

/** An error as the driver reports one: the SQLSTATE in `code`. */
function pgError(code: string): Error {
  return Object.assign(new Error(`sqlstate ${code}`), { code });
}

describe.each(backends)('%s: writeTransaction retries conflicts', (backend) => {
  const ctx = useTestDatabase(backend);

  it.each(['40P01', '40001'])('runs the work again after a %s, keeping only the last run', async (code) => {
    await sql`CREATE TABLE IF NOT EXISTS retry_probe (run int)`.execute(ctx.db);
    await sql`TRUNCATE retry_probe`.execute(ctx.db);
    let runs = 0;
    const result = await writeTransaction(ctx.db, async (trx) => {
      runs += 1;
      await sql`INSERT INTO retry_probe (run) VALUES (${runs})`.execute(trx);
      if (runs < 3) throw pgError(code);
      return 'done';
    });
    expect(result).toBe('done');
    expect(runs).toBe(3);
    // The aborted runs were rolled back: only the last one's row is there.
    const { rows } = await sql<{ run: number }>`SELECT run FROM retry_probe`.execute(ctx.db);
    expect(rows).toEqual([{ run: 3 }]);
  });

  it('gives up after a bounded number of attempts with the commit failure', async () => {
    let runs = 0;
    const failing = writeTransaction(ctx.db, async () => {
      runs += 1;
      throw pgError('40P01');
    });
    await expect(failing).rejects.toBeInstanceOf(CommitFailedError);
    expect(runs).toBe(TRANSACTION_ATTEMPTS);
  });

  it('does not retry other failures', async () => {
    let runs = 0;
    await expect(
      writeTransaction(ctx.db, async () => {
        runs += 1;
        throw pgError('23514');
      }),
    ).rejects.toBeInstanceOf(CommitFailedError);
    expect(runs).toBe(1);
  });
});
