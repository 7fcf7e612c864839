import { type Executor, writeTransaction } from '../../db/transaction.js';
import { writeAccountEvent } from '../../modules/account-events/outbox.js';
import type { SecondFactorRepo } from '../../modules/second-factor/repo.js';
import type { Locale } from '../../validation/messages.js';
import type { ActivityUser, SecurityActivity } from '../security-activity/recorder.js';

/** An operator's command has no request: no address or user agent to log. */
const OPERATOR_CLIENT = { ip: '', userAgent: undefined };

/**
 * What a reset did: `disabled` a second factor that was on (logged and mailed), `cleared_setup` a setup that
 * never got its first code (the second factor was never on: nothing to log or alert), or `nothing`.
 */
export type SecondFactorResetOutcome = 'disabled' | 'cleared_setup' | 'nothing';

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
   * transaction with its event: the user signs in with the password alone again. Only an enabled second
   * factor is an event: `second_factor_disabled` is logged, and its alert, in `locale`, sent after commit. A
   * pending setup is cleared silently: sign-in never asked for it, so the account is no weaker, and an alert
   * saying two-step verification was turned off would be untrue.
   */
  async reset(user: ActivityUser, locale: Locale): Promise<SecondFactorResetOutcome> {
    const done = await writeTransaction(this.db, async (trx) => {
      const removed = await this.repo.with(trx).removeAll(user.id);
      if (removed === undefined) return { outcome: 'nothing' } as const;
      if (removed === 'pending') return { outcome: 'cleared_setup' } as const;
      await writeAccountEvent(trx, 'second_factor.disabled', user.id, { user_id: user.id });
      const client = { ...OPERATOR_CLIENT, locale };
      const details = { by: 'operator' };
      const alert = await this.activity.record(
        { user, type: 'second_factor_disabled', client, details },
        trx,
      );
      return { outcome: 'disabled', alert } as const;
    });
    if (done.outcome === 'disabled') this.activity.send(done.alert);
    return done.outcome;
  }
}
