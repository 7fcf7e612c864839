import type { UserRow } from '../../db/schema.js';
import { type Executor, writeTransaction } from '../../db/transaction.js';
import { AccountDisabledError, type FieldFailures, ValidationError } from '../../errors.js';
import { newId } from '../../lib/ids.js';
import { iso } from '../../lib/time.js';
import { hashApiToken, newApiToken } from '../../lib/tokens.js';
import type { Mailer } from '../../mail/mailer.js';
import { linkWithToken } from '../../modules/lifecycle/links.js';
import type { OneTimeTokensRepo } from '../../modules/lifecycle/repo.js';
import type { PostsService } from '../../modules/posts/service.js';
import type { TokensService } from '../../modules/tokens/service.js';
import type { UsersRepo } from '../../modules/users/repo.js';
import type { UsersService } from '../../modules/users/service.js';
import type { SignedIn } from '../../modules/users/view.js';
import type { Locale } from '../../validation/messages.js';
import type { ClientInfo } from '../client.js';
import type { SecurityActivity } from '../security-activity/recorder.js';
import type { CancelProof } from './rules.js';

/** An operator's deletion (the command line): no request, so no address or user agent to log. */
const OPERATOR: ClientInfo = { ip: '', userAgent: undefined };

export interface GracePeriodSettings {
  /** DELETION_GRACE_DAYS: 0 means no grace period (the deletion is immediate, nothing is scheduled). */
  graceDays: number;
  /** DELETION_CANCEL_URL: the mailed link's template, with `{token}`. */
  cancelUrlTemplate: string;
}

/** The sign-in's password check, under the login's counters (SignIn.provePassword). */
export interface PasswordProof {
  provePassword(email: string, password: string, client: ClientInfo): Promise<UserRow>;
}

/** A used, expired or unknown cancel link, or one of an account no longer scheduled: one answer. */
const invalidToken = () => ValidationError.notFound('token');
const notScheduled = () => new ValidationError({ email: [{ rule: 'deletion_not_scheduled' }] });

const DAY_MS = 86_400_000;

/** What ScheduledDeletions is built from. */
export interface ScheduledDeletionsDeps {
  db: Executor;
  usersRepo: UsersRepo;
  users: UsersService;
  tokens: TokensService;
  posts: PostsService;
  oneTimeTokens: OneTimeTokensRepo;
  mailer: Mailer;
  passwords: PasswordProof;
  settings: GracePeriodSettings;
  activity: SecurityActivity;
}

/**
 * Account deletion with a grace period. Scheduling revokes every token, hides the account's posts (and, by
 * the inspirer pool's trigger, the inspirer) and mails a single-use link that takes it back; the row stays,
 * so its email, username and slug stay taken. Sign-in answers 409 deletion_scheduled meanwhile. A cancel
 * (the link, or the right email and password) restores everything and signs in; once the grace period is
 * over the server erases the account (AccountEraser.eraseDue).
 *
 * Every transaction here takes the user row's lock first, as the eraser does, so a cancel racing the sweep
 * queues behind it (and finds no account) or before it (and the sweep skips the account): never half of each.
 */
export class ScheduledDeletions {
  constructor(private readonly deps: ScheduledDeletionsDeps) {}

  /** Whether deletions wait for a grace period at all (DELETION_GRACE_DAYS > 0). */
  get enabled(): boolean {
    return this.deps.settings.graceDays > 0;
  }

  /**
   * Schedules the account's deletion, in one transaction with everything it implies (above) and its mail;
   * sends the mail after commit. The due time, or undefined when the account was scheduled already (a
   * second request racing this one) or is gone.
   */
  async schedule(
    user: Pick<UserRow, 'id'>,
    locale: Locale,
    client: ClientInfo = OPERATOR,
  ): Promise<Date | undefined> {
    const cancelToken = newApiToken();
    const done = await writeTransaction(this.deps.db, async (trx) => {
      const row = await this.deps.usersRepo.with(trx).scheduleDeletion(user.id, this.deps.settings.graceDays);
      if (!row?.deletion_due_at) return undefined;
      await this.deps.tokens.revokeAll(trx, row.id);
      await this.deps.posts.setAuthorHidden(trx, row.id, true);
      await this.deps.oneTimeTokens.with(trx).replace({
        id: newId(),
        userId: row.id,
        purpose: 'deletion_cancel',
        tokenHash: hashApiToken(cancelToken),
        email: row.email,
        // The link works exactly as long as there is something to take back.
        expiresAt: row.deletion_due_at,
      });
      const mail = await this.deps.mailer.queueWithin(trx, row.email, 'deletion_scheduled', locale, {
        username: row.username,
        link: linkWithToken(this.deps.settings.cancelUrlTemplate, cancelToken),
        validForMs: this.deps.settings.graceDays * DAY_MS,
      });
      const alert = await this.deps.activity.record(
        {
          user: row,
          type: 'deletion_requested',
          client: { ...client, locale },
          details: { by: client === OPERATOR ? 'operator' : 'user', due_at: iso(row.deletion_due_at) },
        },
        trx,
      );
      return { dueAt: row.deletion_due_at, mail, alert };
    });
    if (!done) return undefined;
    this.deps.mailer.sendSoon(done.mail);
    this.deps.activity.send(done.alert);
    return done.dueAt;
  }

  /**
   * Takes the deletion back with the mailed token when one comes, else with the email and password (both
   * required then: a 422 names the missing ones).
   */
  cancel(proof: CancelProof, client: ClientInfo): Promise<SignedIn> {
    if (proof.token !== undefined) return this.cancelWithToken(proof.token, client);
    const { email, password } = proof;
    if (email === undefined || password === undefined) {
      const failures: FieldFailures = {};
      if (email === undefined) failures.email = [{ rule: 'required' }];
      if (password === undefined) failures.password = [{ rule: 'required' }];
      throw new ValidationError(failures);
    }
    return this.cancelWithPassword(email, password, client);
  }

  /** Takes the deletion back with the mailed token, which works once; a dead one is a 422 on `token`. */
  async cancelWithToken(token: string, client: ClientInfo): Promise<SignedIn> {
    const tokenHash = hashApiToken(token);
    // A dead token fails here, before any lock is taken.
    const holder = await this.deps.oneTimeTokens.findUsable(tokenHash, 'deletion_cancel');
    if (!holder) throw invalidToken();
    return this.restore(holder.id, client, invalidToken, async (trx) => {
      const userId = await this.deps.oneTimeTokens.with(trx).consume(tokenHash, 'deletion_cancel');
      if (userId !== holder.id) throw invalidToken();
    });
  }

  /**
   * Takes the deletion back with the account's email and password, checked under the login's counters; the
   * mailed link stops working. An account not scheduled for deletion is a 422 on `email`.
   */
  async cancelWithPassword(email: string, password: string, client: ClientInfo): Promise<SignedIn> {
    const user = await this.deps.passwords.provePassword(email, password, client);
    if (user.deletion_scheduled_at === null) throw notScheduled();
    return this.restore(user.id, client, notScheduled, async (trx) => {
      await this.deps.oneTimeTokens.with(trx).deleteFor(user.id, 'deletion_cancel');
    });
  }

  /**
   * One transaction: the row lock, the proof used up (`useProof`), the schedule cleared, the posts shown
   * again, a new token (the revoked ones stay revoked). `refused`: the answer when the account is no longer
   * scheduled (cancelled meanwhile) or is gone (the sweep erased it first).
   */
  private async restore(
    userId: string,
    client: ClientInfo,
    refused: () => ValidationError,
    useProof: (trx: Executor) => Promise<void>,
  ): Promise<SignedIn> {
    const { row, issued, alert } = await writeTransaction(this.deps.db, async (trx) => {
      const users = this.deps.usersRepo.with(trx);
      if (!(await users.lockForDelete(userId))) throw refused();
      await useProof(trx);
      const row = await users.cancelDeletion(userId);
      if (!row) throw refused();
      // An operator disabled the account meanwhile: their lock is not undone here (rolled back).
      if (row.disabled_at !== null) throw new AccountDisabledError();
      await this.deps.posts.setAuthorHidden(trx, userId, false);
      const alert = await this.deps.activity.record({ user: row, type: 'deletion_cancelled', client }, trx);
      return { row, issued: await this.deps.tokens.issue(trx, userId, client.userAgent), alert };
    });
    this.deps.activity.send(alert);
    return { user: { ...(await this.deps.users.view(row)), api_token: issued.token } };
  }
}
