import { type Executor, writeTransaction } from '../../db/transaction.js';
import type { SecondFactorRepo } from './repo.js';

/** What operators do to a user's second factor (`accounts user 2fa reset`); HTTP never reaches this. */
export class SecondFactorOperations {
  constructor(
    private readonly db: Executor,
    private readonly repo: SecondFactorRepo,
  ) {}

  /**
   * Removes the user's authenticator (pending or enabled), recovery codes and waiting sign-ins, in one
   * transaction: the user signs in with the password alone again. False when there was no authenticator.
   */
  reset(userId: string): Promise<boolean> {
    return writeTransaction(this.db, (trx) => this.repo.with(trx).removeAll(userId));
  }
}
