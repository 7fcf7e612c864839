import { type Executor, writeTransaction } from '../../db/transaction.js';
import { writeAccountEvent } from '../../modules/account-events/outbox.js';
import type { OneTimeTokensRepo } from '../../modules/lifecycle/repo.js';
import type { PostsService } from '../../modules/posts/service.js';
import type { UsersRepo } from '../../modules/users/repo.js';
import type { Locale } from '../../validation/messages.js';
import type { SecurityActivity } from '../security-activity/recorder.js';

/** What OperatorDeletionCancel is built from: the parts of ScheduledDeletions a cancel without a session uses. */
export interface OperatorDeletionCancelDeps {
  db: Executor;
  usersRepo: UsersRepo;
  posts: PostsService;
  oneTimeTokens: OneTimeTokensRepo;
  activity: SecurityActivity;
}

/**
 * Staff taking a scheduled deletion back for the user (who asked them to): the schedule cleared, the posts
 * shown again and the mailed cancel link dropped, under the row lock every deletion step takes first, with
 * its account event and the user's alert. Unlike the user's own cancel it signs nobody in: the user signs
 * in as usual afterwards (every token ended when the deletion was scheduled).
 */
export class OperatorDeletionCancel {
  constructor(private readonly deps: OperatorDeletionCancelDeps) {}

  /** True when the deletion was taken back; false when none was scheduled (or the account is gone). */
  async cancel(userId: string, locale: Locale): Promise<boolean> {
    const done = await writeTransaction(this.deps.db, async (trx) => {
      if (!(await this.deps.usersRepo.with(trx).lockForDelete(userId))) return undefined;
      const row = await this.deps.usersRepo.with(trx).cancelDeletion(userId);
      if (!row) return undefined;
      await this.deps.posts.setAuthorHidden(trx, userId, false);
      await this.deps.oneTimeTokens.with(trx).deleteFor(userId, 'deletion_cancel');
      await writeAccountEvent(trx, 'user.deletion_cancelled', userId, { id: userId });
      const client = { ip: '', userAgent: undefined, locale };
      const alert = await this.deps.activity.record(
        { user: row, type: 'deletion_cancelled', client, details: { by: 'operator' } },
        trx,
      );
      return { alert };
    });
    if (done === undefined) return false;
    this.deps.activity.send(done.alert);
    return true;
  }
}
