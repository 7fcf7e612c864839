import type { UserRow, UserWithProviders } from '../../db/schema.js';
import { type Executor, writeTransaction } from '../../db/transaction.js';
import {
  AccountDisabledError,
  type FieldFailures,
  InvalidCredentialsError,
  type ServiceError,
  ValidationError,
} from '../../errors.js';
import { newId } from '../../lib/ids.js';
import { iso } from '../../lib/time.js';
import { hashApiToken, newApiToken } from '../../lib/tokens.js';
import type { Mailer } from '../../mail/mailer.js';
import { writeAccountEvent } from '../../modules/account-events/outbox.js';
import type { SessionMethod } from '../../modules/account-events/types.js';
import { linkWithToken } from '../../modules/lifecycle/links.js';
import type { OneTimeTokensRepo } from '../../modules/lifecycle/repo.js';
import type { PostsService } from '../../modules/posts/service.js';
import type { TokensService } from '../../modules/tokens/service.js';
import type { UsersRepo } from '../../modules/users/repo.js';
import type { UsersService } from '../../modules/users/service.js';
import type { SignedIn } from '../../modules/users/view.js';
import type { Locale } from '../../validation/messages.js';
import type { ClientInfo } from '../client.js';
import type { CompletedSession, DeletionCancelCompletion } from '../second-factor/sign-in.js';
import type { SecurityActivity } from '../security-activity/recorder.js';
import { answered, refused, type SignInOutcome } from '../sign-in/admission.js';
import type { SessionGate } from '../sign-in/session-gate.js';
import type { SignInTokens } from '../sign-in/tokens.js';
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
  provePassword(
    email: string,
    password: string,
    client: ClientInfo,
    then: (user: UserWithProviders, knownDevice: boolean) => Promise<SignInOutcome>,
  ): Promise<SignInOutcome>;
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
  /** Whether the account may have its session back now, and how (a second factor first). */
  gate: SessionGate;
  /** Writes the session's token in the cancel's transaction, the gate's rule applied under a lock. */
  sessionTokens: SignInTokens;
}

/**
 * Account deletion with a grace period. Scheduling revokes every token, hides the account's posts (and, by
 * the inspirer pool's trigger, the inspirer) and mails a single-use link that takes it back; the row stays,
 * so its email, username and slug stay taken. Sign-in answers 409 deletion_scheduled meanwhile. A cancel
 * (the link, or the right email and password) is a sign-in to the SessionGate: with a second factor on it
 * answers the challenge, whose right code (SecondFactorSignIn) comes back here; then it restores everything,
 * revokes every token left and signs in. Once the grace period is over the server erases the account
 * (AccountEraser.eraseDue).
 *
 * Every transaction here takes the user row's lock first, as the eraser does, so a cancel racing the sweep
 * queues behind it (and finds no account) or before it (and the sweep skips the account): never half of each.
 */
export class ScheduledDeletions implements DeletionCancelCompletion {
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
      await this.deps.tokens.revokeAll(trx, row.id, 'deletion');
      const scheduledFor = iso(row.deletion_due_at);
      await writeAccountEvent(trx, 'user.deletion_scheduled', row.id, {
        id: row.id,
        scheduled_for: scheduledFor,
      });
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
          details: { by: client === OPERATOR ? 'operator' : 'user', due_at: scheduledFor },
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
  cancel(proof: CancelProof, client: ClientInfo): Promise<SignInOutcome> {
    if (proof.token !== undefined) return this.cancelWithToken(proof.token, client);
    const { email, password } = proof;
    if (email === undefined || password === undefined) {
      const failures: FieldFailures = {};
      if (email === undefined) failures.email = [{ rule: 'required' }];
      if (password === undefined) failures.password = [{ rule: 'required' }];
      throw new ValidationError(failures);
    }
    return this.byPassword(email, password, client);
  }

  /**
   * Takes the deletion back with the mailed token, which works once; a dead one is a 422 on `token`. With a
   * second factor on, the link is the first factor: the answer is the challenge, and the link stays usable
   * until the code completes the cancel.
   */
  async cancelWithToken(token: string, client: ClientInfo): Promise<SignInOutcome> {
    const tokenHash = hashApiToken(token);
    // A dead token fails here, before any lock is taken.
    const holder = await this.deps.oneTimeTokens.findUsable(tokenHash, 'deletion_cancel');
    if (!holder) return refused(invalidToken());
    // Erased meanwhile (the sweep came first): the link is dead.
    const user = await this.deps.usersRepo.findById(holder.id);
    if (user === undefined) return refused(invalidToken());
    const answer = await this.deps.gate.admit(
      user,
      { method: 'deletion_link', knownDevice: false },
      { factors: 1, purpose: 'deletion_cancel' },
    );
    if (answer.kind !== 'session') return answer;
    return this.restore(holder.id, client, 'email_link', invalidToken, async (trx) => {
      const userId = await this.deps.oneTimeTokens.with(trx).consume(tokenHash, 'deletion_cancel');
      if (userId !== holder.id) throw invalidToken();
    });
  }

  /**
   * Takes the deletion back with the account's email and password, checked under the login's counters; the
   * mailed link stops working. An account not scheduled for deletion is a 422 on `email`. Answered as the
   * route does (in-process callers).
   */
  async cancelWithPassword(email: string, password: string, client: ClientInfo): Promise<SignedIn> {
    return answered(await this.byPassword(email, password, client));
  }

  private byPassword(email: string, password: string, client: ClientInfo): Promise<SignInOutcome> {
    return this.deps.passwords.provePassword(email, password, client, async (user, knownDevice) => {
      if (user.disabled_at !== null) return refused(new AccountDisabledError());
      if (user.deletion_scheduled_at === null) return refused(notScheduled());
      const answer = await this.deps.gate.admit(
        user,
        { method: 'email', knownDevice },
        { factors: 1, purpose: 'deletion_cancel' },
      );
      if (answer.kind !== 'session') return answer;
      return this.restore(user.id, client, 'password', notScheduled, (trx) => this.dropLinks(trx, user.id));
    });
  }

  /**
   * The cancel's challenge got its right code (SecondFactorSignIn, in its transaction): the deletion is taken
   * back and the mailed link stops working, as for a cancel without a second factor.
   */
  async restoreWithin(
    trx: Executor,
    userId: string,
    client: ClientInfo,
  ): Promise<CompletedSession | { kind: 'refused'; error: ServiceError }> {
    if (!(await this.deps.usersRepo.with(trx).lockForDelete(userId))) return refused(notScheduled());
    await this.dropLinks(trx, userId);
    return this.restoreLocked(trx, userId, client, 'second_factor');
  }

  private async dropLinks(trx: Executor, userId: string): Promise<void> {
    await this.deps.oneTimeTokens.with(trx).deleteFor(userId, 'deletion_cancel');
  }

  /**
   * One transaction: the row lock, the proof used up (`useProof`), then restoreLocked. `refused`: the answer
   * when the account is no longer scheduled (cancelled meanwhile) or is gone (the sweep erased it first).
   */
  private async restore(
    userId: string,
    client: ClientInfo,
    method: SessionMethod,
    refusedAnswer: () => ValidationError,
    useProof: (trx: Executor) => Promise<void>,
  ): Promise<SignInOutcome> {
    const done = await writeTransaction(this.deps.db, async (trx) => {
      if (!(await this.deps.usersRepo.with(trx).lockForDelete(userId))) throw refusedAnswer();
      await useProof(trx);
      const restored = await this.restoreLocked(trx, userId, client, method);
      // Thrown, so the proof's use rolls back with the rest.
      if (restored.kind === 'refused') throw restored.error;
      return restored;
    });
    this.deps.activity.send(done.alert);
    const view = await this.deps.users.view(done.row);
    return { kind: 'session', signedIn: { user: { ...view, api_token: done.token.token } } };
  }

  /**
   * With the row locked: the schedule cleared, the posts shown again, every token and second-factor
   * challenge the account still has ended (nothing made before the cancel outlives it) and the session's
   * token, the gate's rule applied again.
   */
  private async restoreLocked(
    trx: Executor,
    userId: string,
    client: ClientInfo,
    method: SessionMethod,
  ): Promise<CompletedSession | { kind: 'refused'; error: ServiceError }> {
    const row = await this.deps.usersRepo.with(trx).cancelDeletion(userId);
    if (!row) return refused(notScheduled());
    // An operator disabled the account meanwhile: their lock is not undone (nothing written yet but this,
    // which the caller rolls back or never commits alone).
    if (row.disabled_at !== null) throw new AccountDisabledError();
    await this.deps.posts.setAuthorHidden(trx, userId, false);
    // What a racing sign-in made before the cancel: ended as the deletion's.
    await this.deps.tokens.revokeAll(trx, userId, 'deletion');
    // A challenge open when the deletion was scheduled (the gate refused it since) dies with it too: no
    // sign-in begun before the deletion becomes a session after its cancel.
    await this.deps.gate.endChallengesWithin(trx, userId);
    const credential = { factors: method === 'second_factor' ? 2 : 1, purpose: 'sign_in' } as const;
    const issue = await this.deps.sessionTokens.issueWithin(
      trx,
      userId,
      credential,
      client.userAgent,
      method,
    );
    // Under the row's lock nothing else can have changed: a second factor turned on since the password was
    // checked is the one way here, and gets no session.
    if (issue.kind !== 'issued') throw new InvalidCredentialsError();
    await writeAccountEvent(trx, 'user.deletion_cancelled', userId, { id: userId });
    const alert = await this.deps.activity.record({ user: row, type: 'deletion_cancelled', client }, trx);
    return { kind: 'issued', token: issue.token, row, alert };
  }
}
