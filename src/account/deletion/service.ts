import { UnauthenticatedError } from '../../errors.js';
import type { AuthContext } from '../../http/auth-context.js';
import { iso } from '../../lib/time.js';
import type { Locale } from '../../validation/messages.js';
import type { ClientInfo } from '../client.js';
import type { Reauthentication, ReauthProof } from '../reauth/service.js';
import type { AccountEraser } from './eraser.js';
import type { ScheduledDeletions } from './scheduled.js';

/** What user/delete answers: erased at once (no grace period), or scheduled for the given time. */
export type DeletionOutcome = { deleted: true } | { deleted: false; scheduled_for: string };

/** The signed-in user's own deletion: re-authentication, then the schedule (or, without a grace period, the eraser). */
export class AccountDeletion {
  constructor(
    private readonly eraser: AccountEraser,
    private readonly scheduled: ScheduledDeletions,
    private readonly reauth: Reauthentication,
  ) {}

  /**
   * The signed-in user deletes their own account, after re-authenticating (the session alone is what a thief
   * has): a missing or wrong proof is a 422 and changes nothing. `locale`: the language of the mail that
   * comes with a scheduled deletion.
   */
  async deleteOwn(
    auth: AuthContext,
    proof: ReauthProof,
    locale: Locale,
    client: ClientInfo,
  ): Promise<DeletionOutcome> {
    const { user } = auth;
    await this.reauth.confirm(auth, proof, 'deletion');
    if (!this.scheduled.enabled) {
      // Deleted meanwhile (a second tap of the button): the session no longer names anyone.
      if (!(await this.eraser.erase(user))) throw new UnauthenticatedError();
      return { deleted: true };
    }
    const dueAt = await this.scheduled.schedule(user, locale, client);
    // Scheduled meanwhile (a second tap of the button): that request revoked this session with the others.
    if (!dueAt) throw new UnauthenticatedError();
    return { deleted: false, scheduled_for: iso(dueAt) };
  }
}
