import { sql } from 'kysely';
import type { Executor } from '../../db/transaction.js';

/**
 * The SQL of a wait for a guardian that begins or ends after sign-up: a verified birth date applies the
 * sign-up's age rule again (docs/identity.md "A verified birth date").
 */
export class GuardianWaits {
  constructor(private readonly db: Executor) {}

  with(trx: Executor): GuardianWaits {
    return new GuardianWaits(trx);
  }

  /**
   * A verified identity shows a child under 14 on an account that needed no consent: it waits for a
   * guardian from now on, as a sign-up under 14 does. False when it was waiting or consented to already.
   */
  async startWaiting(userId: string): Promise<boolean> {
    const result = await this.db
      .updateTable('users')
      .set({ guardian_consent: 'pending', guardian_pending_since: sql<Date>`now()` })
      .where('id', '=', userId)
      .where('guardian_consent', 'is', null)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /**
   * A verified identity shows 14 or over: no guardian's consent is needed, the account's restrictions end,
   * and the guardian addresses its links hold (collected only to ask) are forgotten, with the links. The
   * answers already given stay on record. False when no consent was needed already.
   */
  async stopWaiting(userId: string): Promise<boolean> {
    const result = await this.db
      .updateTable('users')
      .set({ guardian_consent: null, guardian_pending_since: null })
      .where('id', '=', userId)
      .where('guardian_consent', 'is not', null)
      .executeTakeFirst();
    if (result.numUpdatedRows === 0n) return false;
    await this.db.deleteFrom('guardian_requests').where('user_id', '=', userId).execute();
    return true;
  }
}
