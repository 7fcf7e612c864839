import { type Executor, writeStatement, writeTransaction } from '../../db/transaction.js';
import { ServiceError } from '../../errors.js';
import type { PasswordHasher } from '../../lib/passwords.js';
import type { SessionMethod } from '../../modules/account-events/types.js';
import type { SecondFactorRepo } from '../../modules/second-factor/repo.js';
import type { IssuedToken, TokensService } from '../../modules/tokens/service.js';
import type { UsersRepo } from '../../modules/users/repo.js';
import { type Admission, admission, type Credential } from './admission.js';

/** What issuing a password sign-in's token came to. */
export type PasswordSignInIssue =
  | { kind: 'issued'; token: IssuedToken }
  /** The hash is no longer the one checked: the password changed, or a parallel login re-hashed it. */
  | { kind: 'password-changed' }
  /** The rule refused it: an operator disabled the account, or its deletion was scheduled, after its read. */
  | Extract<Admission, { kind: 'refused' }>;

/** What issuing a passkey sign-in's token came to (`alongside`: what the caller wrote with the token). */
export type PasskeySignInIssue<T> =
  | { kind: 'issued'; token: IssuedToken; alongside: T }
  /** Another use of the same passkey recorded its counter first (or the account is gone). */
  | { kind: 'replayed' }
  /** The rule refused the account a session (nothing was written: the passkey's use is rolled back). */
  | Extract<Admission, { kind: 'refused' }>;

/** What issuing a token inside the caller's transaction came to: the token, or the rule's other answer. */
export type IssueWithin =
  | { kind: 'issued'; token: IssuedToken }
  /** The account is gone (erased meanwhile). */
  | { kind: 'gone' }
  | Exclude<Admission, { kind: 'session' }>;

/** What SignInTokens is built from. */
export interface SignInTokensDeps {
  db: Executor;
  users: UsersRepo;
  tokens: TokensService;
  hasher: PasswordHasher;
  /** A session made with two factors ends the run of wrong second-factor codes (the owner is back). */
  secondFactor: SecondFactorRepo;
}

/**
 * Thrown to roll a passkey's recorded use back with the rest when the rule refuses the session (a
 * ServiceError, so writeTransaction hands it on as it is), and caught again in afterPasskey.
 */
class RefusedSession extends ServiceError {
  /** Never answered: caught below; one that escaped would be a fault. */
  readonly code = 'internal_error';
  constructor(readonly admission: Extract<Admission, { kind: 'refused' }>) {
    super('refused');
  }
}

/**
 * The tokens of sessions, written once SessionGate admitted the account, each after the gate's rule
 * (admission.ts) is applied again to the account as it is now. A password is checked outside any transaction (argon2 takes a while),
 * so the account may change before its token is written: the token is written only if the account still has
 * the hash that was checked and is neither disabled nor scheduled for deletion, and the outcome says which it
 * came to.
 */
export class SignInTokens {
  private readonly db: Executor;
  private readonly users: UsersRepo;
  private readonly tokens: TokensService;

  constructor(private readonly deps: SignInTokensDeps) {
    this.db = deps.db;
    this.users = deps.users;
    this.tokens = deps.tokens;
  }

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
    if (this.deps.hasher.needsRehash(checkedHash)) {
      return this.inTransaction(userId, checkedHash, name, await this.deps.hasher.hash(password));
    }
    // The usual case, in one statement: the token is written only if the account still has the hash that
    // was just checked and is not disabled, both read under a share lock (TokensService.issueIfSignInHolds).
    const token = await writeStatement(() => this.tokens.issueIfSignInHolds(userId, checkedHash, name));
    if (token) return { kind: 'issued', token };
    // It changed meanwhile: the transaction tells a disabled account from a changed hash.
    return this.inTransaction(userId, checkedHash, name, undefined);
  }

  /**
   * Inside the caller's transaction (the one that uses its proof up): the account's state re-read under a
   * share lock, the rule applied to it, and the token when it says `session` — so a disable, a scheduled
   * deletion or a second factor turned on that commits meanwhile is not missed. The session's event says
   * it was made by `method`.
   */
  async issueWithin(
    trx: Executor,
    userId: string,
    credential: Credential,
    name: string | undefined,
    method: SessionMethod,
  ): Promise<IssueWithin> {
    const current = await this.users.with(trx).signInState(userId, 'share');
    if (current === undefined) return { kind: 'gone' };
    const admitted = admission(current, credential);
    if (admitted.kind !== 'session') return admitted;
    if (credential.factors === 2 && current.second_factor_enabled) {
      await this.deps.secondFactor.with(trx).clearFailures(userId);
    }
    return { kind: 'issued', token: await this.tokens.issue(trx, userId, name, method) };
  }

  /**
   * After a passkey assertion proved the user: `recordUse` (the passkey's new counter, a statement only one
   * use of an assertion can win) and the token in one transaction (issueWithin: the rule under a share
   * lock); `replayed` when `recordUse` lost. What `alongside` writes (the sign-in's event) commits with the
   * token, and only with it; a refusal rolls the recorded use back with the rest.
   */
  async afterPasskey<T>(
    userId: string,
    name: string | undefined,
    recordUse: (trx: Executor) => Promise<boolean>,
    alongside: (trx: Executor) => Promise<T>,
  ): Promise<PasskeySignInIssue<T>> {
    try {
      return await writeTransaction(this.db, async (trx): Promise<PasskeySignInIssue<T>> => {
        if (!(await recordUse(trx))) return { kind: 'replayed' };
        const issue = await this.issueWithin(
          trx,
          userId,
          { factors: 2, purpose: 'sign_in' },
          name,
          'passkey',
        );
        if (issue.kind === 'refused') throw new RefusedSession(issue);
        // `gone`; `second_factor` is not reached (two factors never need a second one).
        if (issue.kind !== 'issued') return { kind: 'replayed' };
        return { kind: 'issued', token: issue.token, alongside: await alongside(trx) };
      });
    } catch (error) {
      if (error instanceof RefusedSession) return error.admission;
      throw error;
    }
  }

  /** A provider sign-in's token (issueWithin's rule, one factor), with what `alongside` writes beside it. */
  afterProvider<T>(
    userId: string,
    name: string | undefined,
    alongside: (trx: Executor) => Promise<T>,
  ): Promise<
    { kind: 'issued'; token: IssuedToken; alongside: T } | Exclude<IssueWithin, { kind: 'issued' }>
  > {
    return this.afterOneFactor(userId, name, 'provider', alongside);
  }

  /** A one-factor sign-in's token made by `method` (a provider, an emailed code), as `afterProvider`. */
  afterOneFactor<T>(
    userId: string,
    name: string | undefined,
    method: SessionMethod,
    alongside: (trx: Executor) => Promise<T>,
  ): Promise<
    { kind: 'issued'; token: IssuedToken; alongside: T } | Exclude<IssueWithin, { kind: 'issued' }>
  > {
    return writeTransaction(this.db, async (trx) => {
      const credential = { factors: 1, purpose: 'sign_in' } as const;
      const issue = await this.issueWithin(trx, userId, credential, name, method);
      if (issue.kind !== 'issued') return issue;
      return { ...issue, alongside: await alongside(trx) };
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
      const admitted = current && admission(current, { factors: 1, purpose: 'sign_in' });
      if (admitted?.kind === 'refused') return admitted;
      if (current?.password_hash !== checkedHash) return { kind: 'password-changed' };
      // A second factor turned on since the row was read: no token (the login starts again).
      if (admitted?.kind === 'second_factor') return { kind: 'password-changed' };
      if (rehashed) await users.replacePasswordHash(userId, rehashed);
      return { kind: 'issued', token: await this.tokens.issue(trx, userId, name, 'password') };
    });
  }
}
