import type { Kysely } from 'kysely';
import { CommitFailedError, ServiceError, ServiceUnavailableError, ValidationError } from '../errors.js';
import { isConnectionError, isUniqueViolation, violatedConstraint } from './errors.js';
import type { Database } from './schema.js';

export type Executor = Kysely<Database>;

/**
 * Runs one write transaction and classifies its failure, so every write path reports the same way:
 * - errors the work itself throws on purpose (validation, not found, …) pass through unchanged;
 * - a unique violation becomes the 422 "has already been taken" on the field its index guards, when
 *   `uniqueField` knows the index (two clients racing for one email, say);
 * - the database being unreachable is a 503;
 * - anything else (a failed COMMIT included) is CommitFailedError, the seed's 500 envelope.
 * Whatever happened, PostgreSQL has rolled the transaction back: nothing is half-written.
 */
export async function writeTransaction<T>(
  db: Executor,
  work: (trx: Executor) => Promise<T>,
  uniqueField: (constraint: string | undefined) => string | undefined = () => undefined,
): Promise<T> {
  try {
    return await db.transaction().execute(work);
  } catch (error) {
    if (error instanceof ServiceError) throw error;
    if (isUniqueViolation(error)) {
      const field = uniqueField(violatedConstraint(error));
      if (field) throw ValidationError.taken(field);
    }
    if (isConnectionError(error)) throw new ServiceUnavailableError(error);
    throw new CommitFailedError(error);
  }
}
