import { type Executor, writeStatement, writeTransaction } from '../../db/transaction.js';
import { AccountDisabledError } from '../../errors.js';
import type { PasswordHasher } from '../../lib/passwords.js';
import type { IssuedToken, TokensService } from '../../modules/tokens/service.js';
import type { UsersRepo } from '../../modules/users/repo.js';

/** What issuing a password sign-in's token came to. */
export type PasswordSignInIssue =
  | { kind: 'issued'; token: IssuedToken }
  /** The hash is no longer the one checked: the password changed, or a parallel login re-hashed it. */
  | { kind: 'password-changed' }
  /** An operator disabled the account after its row was read. */
  | { kind: 'disabled' }
  /** The account's deletion was scheduled after its row was read. */
  | { kind: 'deletion-scheduled'; scheduledFor: Date };

/** What issuing a passkey sign-in's token came to (`alongside`: what the caller wrote with the token). */
export type PasskeySignInIssue<T> =
  | { kind: 'issued'; token: IssuedToken; alongside: T }
  /** Another use of the same passkey recorded its counter first (or the account is gone). */
  | { kind: 'replayed' };

/**
 * The tokens of sign-ins. A password is checked outside any transaction (argon2 takes a while), so the
 * account may change before its token is written: the token is written only if the account still has the
 * hash that was checked and is neither disabled nor scheduled for deletion, and the outcome says which it
 * came to.
 */
export class SignInTokens {
  constructor(
    private readonly db: Executor,
    private readonly users: UsersRepo,
    private readonly tokens: TokensService,
    private readonly hasher: PasswordHasher,
  ) {}

  /**
   * After `password` matched `checkedHash`. A hash made with a lower argon2 cost than today's is replaced by
   * one made now, while the password is at hand (it is never kept), in the token's transaction.
   */
  async afterPassword(
    userId: string,
    checkedHash: string,
    password: string,
    name: string | undefined,
  ): Promise<PasswordSignInIssue> {
    if (this.hasher.needsRehash(checkedHash)) {
      return this.inTransaction(userId, checkedHash, name, await this.hasher.hash(password));
    }
    // The usual case, in one statement: the token is written only if the account still has the hash that
    // was just checked and is not disabled, both read under a share lock (TokensService.issueIfSignInHolds).
    const token = await writeStatement(() => this.tokens.issueIfSignInHolds(userId, checkedHash, name));
    if (token) return { kind: 'issued', token };
    // It changed meanwhile: the transaction tells a disabled account from a changed hash.
    return this.inTransaction(userId, checkedHash, name, undefined);
  }

  /**
   * After the identity provider vouched for the user (nothing to re-check): the token in its transaction,
   * with what `alongside` writes there too (the sign-in's event).
   */
  afterProvider<T>(
    userId: string,
    name: string | undefined,
    alongside: (trx: Executor) => Promise<T>,
  ): Promise<{ token: IssuedToken; alert: T }> {
    return writeTransaction(this.db, async (trx) => {
      const token = await this.tokens.issue(trx, userId, name);
      return { token, alert: await alongside(trx) };
    });
  }

  /**
   * After the second factor, inside the caller's transaction (the one that uses the challenge up): the token,
   * unless an operator disabled the account meanwhile (re-read under a share lock, as for a password sign-in).
   */
  async afterSecondFactor(
    trx: Executor,
    userId: string,
    name: string | undefined,
  ): Promise<{ kind: 'issued'; token: IssuedToken } | { kind: 'disabled' }> {
    const current = await this.users.with(trx).signInState(userId, 'share');
    if (current === undefined || current.disabled_at !== null) return { kind: 'disabled' };
    return { kind: 'issued', token: await this.tokens.issue(trx, userId, name) };
  }

  /**
   * After a passkey assertion proved the user: `recordUse` (the passkey's new counter, a statement only one
   * use of an assertion can win) and the token in one transaction, with the disabled flag re-read under a
   * share lock, so a disable that commits meanwhile is not missed; `replayed` when `recordUse` lost. What
   * `alongside` writes (the sign-in's event) commits with the token, and only with it.
   */
  afterPasskey<T>(
    userId: string,
    name: string | undefined,
    recordUse: (trx: Executor) => Promise<boolean>,
    alongside: (trx: Executor) => Promise<T>,
  ): Promise<PasskeySignInIssue<T>> {
    return writeTransaction(this.db, async (trx): Promise<PasskeySignInIssue<T>> => {
      if (!(await recordUse(trx))) return { kind: 'replayed' };
      const current = await this.users.with(trx).signInState(userId, 'share');
      if (current === undefined) return { kind: 'replayed' };
      // Rolls the recorded use back with the rest: a disabled account's passkey is not "used".
      if (current.disabled_at !== null) throw new AccountDisabledError();
      const token = await this.tokens.issue(trx, userId, name);
      return { kind: 'issued', token, alongside: await alongside(trx) };
    });
  }

  /** True when `deviceToken` (the token a login presented) was issued to `userId`: a device of record. */
  async isKnownDevice(deviceToken: string | undefined, userId: string): Promise<boolean> {
    return deviceToken !== undefined && (await this.tokens.issuedTo(deviceToken)) === userId;
  }

  /**
   * Issues the token in a transaction that re-reads the hash and the disabled flag, share-locked; with
   * `rehashed` (a new hash of the same password) update-locked, and stores it.
   */
  private inTransaction(
    userId: string,
    checkedHash: string,
    name: string | undefined,
    rehashed: string | undefined,
  ): Promise<PasswordSignInIssue> {
    return writeTransaction(this.db, async (trx): Promise<PasswordSignInIssue> => {
      const users = this.users.with(trx);
      const current = await users.signInState(userId, rehashed ? 'update' : 'share');
      if (current !== undefined && current.disabled_at !== null) return { kind: 'disabled' };
      if (current?.deletion_due_at)
        return { kind: 'deletion-scheduled', scheduledFor: current.deletion_due_at };
      if (current?.password_hash !== checkedHash) return { kind: 'password-changed' };
      if (rehashed) await users.replacePasswordHash(userId, rehashed);
      return { kind: 'issued', token: await this.tokens.issue(trx, userId, name) };
    });
  }
}
