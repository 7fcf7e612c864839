import type { UserRow } from '../../db/schema.js';
import { type Executor, writeTransaction } from '../../db/transaction.js';
import { fieldOfUsersIndex } from '../../db/users-indexes.js';
import { NotFoundError, ValidationError } from '../../errors.js';
import { iso } from '../../lib/time.js';
import type { EmailVerificationService } from '../../modules/lifecycle/verification-service.js';
import type { TokensRepo } from '../../modules/tokens/repo.js';
import type { UserChanges, UsersRepo } from '../../modules/users/repo.js';
import type { UsersTaken } from '../../modules/users/rules.js';
import { validate } from '../../validation/engine.js';
import type { Locale } from '../../validation/messages.js';
import type { OperatorDeletionCancel } from '../deletion/operator-cancel.js';
import type { ScheduledDeletions } from '../deletion/scheduled.js';
import { writeUserUpdated } from '../events/user-events.js';
import type { SecondFactorReset, SecondFactorResetOutcome } from '../second-factor/operator-reset.js';
import { type RevealableField, renameRules, revealRules } from './rules.js';
import type { StaffActor, StaffGate } from './staff-access.js';

/** What the support actions are made of: the services the app and the operator commands already use. */
export interface ConsoleUserActionsDeps {
  db: Executor;
  usersRepo: UsersRepo;
  taken: UsersTaken;
  tokens: Pick<TokensRepo, 'deleteOwn' | 'deleteAllOf'>;
  secondFactorReset: SecondFactorReset;
  verification: EmailVerificationService;
  scheduledDeletions: ScheduledDeletions;
  deletionCancel: OperatorDeletionCancel;
  gate: StaffGate;
}

/** Every action's input: why (required), and the language of any mail it sends the user. */
export interface ActionInput {
  reason?: string | undefined;
  locale?: Locale | undefined;
}

export interface RenameInput extends ActionInput {
  username?: string | undefined;
  slug?: string | undefined;
}

const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const subjectOf = (userId: string) => (UUID_SHAPE.test(userId) ? userId.toLowerCase() : null);
const isoOrNull = (date: Date | null) => (date === null ? null : iso(date));

/**
 * What support staff do to a user, each behind `users.act` (reveal behind `users.unmask`),
 * each with a reason, each one access record. They call what the app's API and the operator commands call,
 * so a rule lives in one place: the disable of the token lookup, the API's username and slug rules, the
 * scheduled deletion with its mail, the operator's second-factor reset.
 */
export class ConsoleUserActions {
  constructor(private readonly deps: ConsoleUserActionsDeps) {}

  /** One masked field in full (`users.unmask`): the reason and the field go into the record. */
  reveal(actor: StaffActor, userId: string, input: { field?: string; reason?: string }) {
    return this.act(
      actor,
      userId,
      'users.reveal',
      input,
      async (user) => {
        const { field } = await validate(revealRules, { ...input });
        const value: string | null = user[field as RevealableField];
        return { field, value };
      },
      (done) => ({ field: done.field }),
      'users.unmask',
    );
  }

  /** Disables the account: sign-in refused, every token refused from the next request on (kept for enable). */
  disable(actor: StaffActor, userId: string, input: ActionInput) {
    return this.setDisabled(actor, userId, input, true);
  }

  enable(actor: StaffActor, userId: string, input: ActionInput) {
    return this.setDisabled(actor, userId, input, false);
  }

  /** Ends one session of the user's (a session of another user is the same 404 as an unknown one). */
  revokeSession(actor: StaffActor, userId: string, sessionId: string, input: ActionInput) {
    return this.act(
      actor,
      userId,
      'users.revoke_session',
      input,
      async (user) => {
        if (
          !UUID_SHAPE.test(sessionId) ||
          !(await this.deps.tokens.deleteOwn(user.id, sessionId, 'revoked'))
        ) {
          throw new NotFoundError('session');
        }
        return { revoked: 1 };
      },
      () => ({ session_id: sessionId }),
    );
  }

  /** Ends every session of the user, each with its `session.revoked` event. */
  revokeAllSessions(actor: StaffActor, userId: string, input: ActionInput) {
    return this.act(
      actor,
      userId,
      'users.revoke_sessions',
      input,
      async (user) => ({ revoked: await this.deps.tokens.deleteAllOf(user.id, 'revoked') }),
      (done) => done,
    );
  }

  /** Removes the second factor (the operator command's reset: logged, and mailed to the user when it was on). */
  resetSecondFactor(actor: StaffActor, userId: string, input: ActionInput) {
    return this.act(
      actor,
      userId,
      'users.reset_second_factor',
      input,
      async (user): Promise<{ outcome: SecondFactorResetOutcome }> => ({
        outcome: await this.deps.secondFactorReset.reset(user, input.locale ?? 'en'),
      }),
      (done) => done,
    );
  }

  /** A fresh verification link to the account's address (the earlier one stops working). */
  resendVerification(actor: StaffActor, userId: string, input: ActionInput) {
    return this.act(
      actor,
      userId,
      'users.resend_verification',
      input,
      async (user) => {
        if (user.email_verified) return { status: 'already_verified' as const };
        const { verification } = this.deps;
        const mail = await writeTransaction(this.deps.db, (trx) =>
          verification.queueWithin(trx, user, input.locale ?? 'en'),
        );
        verification.send(mail);
        return { status: 'sent' as const };
      },
      (done) => done,
    );
  }

  /** Schedules the deletion as the user's own request does (tokens ended, posts hidden, the cancel link mailed). */
  scheduleDeletion(actor: StaffActor, userId: string, input: ActionInput) {
    return this.act(
      actor,
      userId,
      'users.schedule_deletion',
      input,
      async (user) => {
        const dueAt = await this.deps.scheduledDeletions.schedule(user, input.locale ?? 'en');
        return { scheduled: dueAt !== undefined, due_at: dueAt === undefined ? null : iso(dueAt) };
      },
      (done) => done,
    );
  }

  cancelDeletion(actor: StaffActor, userId: string, input: ActionInput) {
    return this.act(
      actor,
      userId,
      'users.cancel_deletion',
      input,
      async (user) => ({ cancelled: await this.deps.deletionCancel.cancel(user.id, input.locale ?? 'en') }),
      (done) => done,
    );
  }

  /**
   * A new username and/or slug, by the app's own rules (user/update's fields and uniqueness); a race lost at
   * the unique indexes is the same 422. The change writes the `user.updated` event the app's would.
   */
  rename(actor: StaffActor, userId: string, input: RenameInput) {
    let before: { username: string; slug: string } | undefined;
    return this.act(
      actor,
      userId,
      'users.rename',
      input,
      async (user) => {
        const params = await validate(renameRules(this.deps.taken), { ...input }, { currentUserId: user.id });
        before = { username: user.username, slug: user.slug };
        const changes: UserChanges = {};
        if (params.username !== undefined) changes.username = params.username;
        if (params.slug !== undefined) changes.slug = params.slug;
        // Nothing to change is a request without its field, as user/update would have nothing to do.
        if (Object.keys(changes).length === 0)
          throw new ValidationError({ username: [{ rule: 'required' }] });
        const row = await writeTransaction(
          this.deps.db,
          async (trx) => {
            const after = await this.deps.usersRepo.with(trx).update(user.id, changes);
            await writeUserUpdated(trx, user, after);
            return after;
          },
          fieldOfUsersIndex,
        );
        return { username: row.username, slug: row.slug };
      },
      (done) => ({ before, after: done }),
    );
  }

  private setDisabled(actor: StaffActor, userId: string, input: ActionInput, disabled: boolean) {
    return this.act(
      actor,
      userId,
      disabled ? 'users.disable' : 'users.enable',
      input,
      async (user) => {
        const row = await this.deps.usersRepo.setDisabled(user.id, disabled);
        if (!row) throw new NotFoundError('user');
        return { disabled_at: isoOrNull(row.disabled_at) };
      },
      (done) => done,
    );
  }

  /** The gate around one action: permission, reason, the user found, exactly one record. */
  private act<T>(
    actor: StaffActor,
    userId: string,
    action: string,
    input: ActionInput,
    work: (user: UserRow) => Promise<T>,
    detail: (done: T) => Record<string, unknown> | undefined,
    permission: 'users.act' | 'users.unmask' = 'users.act',
  ): Promise<T> {
    const subjectId = subjectOf(userId);
    const access = { permission, action, subjectId, reason: input.reason, reasonRequired: true };
    return this.deps.gate.run(
      actor,
      access,
      async () => {
        const user = subjectId === null ? undefined : await this.deps.usersRepo.findById(subjectId);
        if (!user) throw new NotFoundError('user');
        return work(user);
      },
      detail,
    );
  }
}
