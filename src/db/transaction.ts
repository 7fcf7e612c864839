import type { Kysely, QueryCreator } from 'kysely';
import { CommitFailedError, ServiceError, ServiceUnavailableError, ValidationError } from '../errors.js';
import { isConnectionError, isRetryableConflict, isUniqueViolation, violatedConstraint } from './errors.js';
import type { Database } from './schema.js';
import type { OutcomeCheck } from './write-outcome.js';

export type Executor = Kysely<Database>;

/**
 * What a shared INSERT builder needs: any query creator over our tables, that of a data-modifying CTE
 * included. Only `insertInto`: a CTE's creator also names the CTEs before it, which makes it no
 * `QueryCreator<Database>` as a whole (its deletes and joins see more tables), yet its inserts are the same.
 */
export type TableInserter = Pick<QueryCreator<Database>, 'insertInto'>;

/**
 * How a write whose answer was lost learns whether it committed after all: `find` looks, on the primary,
 * for what it made (by the ids the process chose), through `check` (none on the embedded database).
 */
export interface LostAnswerLookup<T> {
  check: OutcomeCheck | undefined;
  find: (db: Executor) => Promise<T | undefined>;
}

/** How many times a transaction runs at most when PostgreSQL aborts it for a deadlock or serialisation. */
export const TRANSACTION_ATTEMPTS = 4;
/** The first retry waits up to this long (jittered), doubling each time: 0–20, 0–40, 0–80 ms. */
const RETRY_BASE_MS = 20;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `work` in a transaction, again when PostgreSQL aborted it as a deadlock victim (40P01) or for a
 * serialisation failure (40001): both mean "nothing was written, run it again", and the client should not pay
 * for two transactions meeting. Bounded and jittered, so retries of colliding transactions spread apart
 * instead of meeting again. `work` must therefore touch nothing but the transaction (it may run again).
 */
async function withRetries<T>(db: Executor, work: (trx: Executor) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute(work);
    } catch (error) {
      if (!isRetryableConflict(error) || attempt >= TRANSACTION_ATTEMPTS) throw error;
      await pause(Math.random() * RETRY_BASE_MS * 2 ** (attempt - 1));
    }
  }
}

/**
 * Runs one write transaction (retrying deadlocks and serialisation failures a few times) and classifies its
 * failure, so every write path reports the same way:
 * - errors the work itself throws on purpose (validation, not found, …) pass through unchanged;
 * - a unique violation becomes the 422 "has already been taken" on the field its index guards, when
 *   `uniqueField` knows the index (two clients racing for one email, say);
 * - the database being unreachable is a 503;
 * - anything else (a failed COMMIT included) is CommitFailedError, the contract's 500 envelope (`Failed to commit transaction.`).
 * Whatever happened, PostgreSQL has rolled the transaction back: nothing is half-written — except when the
 * COMMIT was sent and its answer lost: then `lookup` asks the primary, and the work's result is returned if
 * the transaction did commit (an unknown outcome stays a 503).
 */
export async function writeTransaction<T>(
  db: Executor,
  work: (trx: Executor) => Promise<T>,
  uniqueField: (constraint: string | undefined) => string | undefined = () => undefined,
  lookup?: LostAnswerLookup<unknown>,
): Promise<T> {
  if (lookup?.check === undefined) {
    try {
      return await withRetries(db, work);
    } catch (error) {
      throw classifiedWriteFailure(error, uniqueField);
    }
  }
  // Set once the work is done: a failure after that came from the COMMIT.
  let done: { result: T } | undefined;
  try {
    return await withRetries(db, async (trx) => {
      done = undefined;
      const result = await work(trx);
      done = { result };
      return result;
    });
  } catch (error) {
    if (done !== undefined && (await lookup.check.committed(error, lookup.find)) !== undefined) {
      return done.result;
    }
    throw classifiedWriteFailure(error, uniqueField);
  }
}

/**
 * One write statement outside a transaction (it is atomic on its own), its failure classified as
 * writeTransaction classifies one: the same envelopes whichever way a write is made. When its answer was
 * lost, `lookup` finds what it wrote if it committed, and that is the result.
 */
export async function writeStatement<T>(
  work: () => Promise<T>,
  uniqueField: (constraint: string | undefined) => string | undefined = () => undefined,
  lookup?: LostAnswerLookup<T>,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const found = lookup?.check && (await lookup.check.committed(error, lookup.find));
    if (found !== undefined) return found;
    throw classifiedWriteFailure(error, uniqueField);
  }
}

function classifiedWriteFailure(
  error: unknown,
  uniqueField: (constraint: string | undefined) => string | undefined,
): unknown {
  if (error instanceof ServiceError) return error;
  if (isUniqueViolation(error)) {
    const field = uniqueField(violatedConstraint(error));
    if (field) return ValidationError.taken(field);
  }
  if (isConnectionError(error)) return new ServiceUnavailableError(error);
  return new CommitFailedError(error);
}
