import { type Executor, writeTransaction } from '../../db/transaction.js';
import type { SecondFactorRepo } from '../../modules/second-factor/repo.js';
import type { Locale } from '../../validation/messages.js';
import type { ActivityUser, SecurityActivity } from '../security-activity/recorder.js';

/** An operator's command has no request: no address or user agent to log. */
const OPERATOR_CLIENT = { ip: '', userAgent: undefined };

/** What operators do to a user's second factor (`accounts user 2fa reset`); HTTP never reaches this. */
export class SecondFactorReset {
  constructor(
    private readonly db: Executor,
    private readonly repo: SecondFactorRepo,
    /** The reset is logged as `second_factor_disabled` by the operator, and alerted like the user's own. */
    private readonly activity: SecurityActivity,
  ) {}

  /**
   * Removes the user's authenticator (pending or enabled), recovery codes and waiting sign-ins, in one
   * transaction with its event: the user signs in with the password alone again. The alert, in `locale`, is
   * sent after commit. False when there was no authenticator (nothing removed, nothing logged).
   */
  async reset(user: ActivityUser, locale: Locale): Promise<boolean> {
    const done = await writeTransaction(this.db, async (trx) => {
      if (!(await this.repo.with(trx).removeAll(user.id))) return undefined;
      const client = { ...OPERATOR_CLIENT, locale };
      const details = { by: 'operator' };
      return {
        alert: await this.activity.record({ user, type: 'second_factor_disabled', client, details }, trx),
      };
    });
    if (done === undefined) return false;
    this.activity.send(done.alert);
    return true;
  }
}
