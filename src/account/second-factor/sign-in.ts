import type { UserRow } from '../../db/schema.js';
import { type Executor, writeTransaction } from '../../db/transaction.js';
import { InvalidCredentialsError, type ServiceError } from '../../errors.js';
import { hashApiToken } from '../../lib/tokens.js';
import { accountKey } from '../../limits/rate-counter.js';
import type { ChallengesRepo, LiveChallenge } from '../../modules/second-factor/challenges-repo.js';
import type { SecondFactorRepo } from '../../modules/second-factor/repo.js';
import type { IssuedToken } from '../../modules/tokens/service.js';
import type { UsersRepo } from '../../modules/users/repo.js';
import type { UsersService } from '../../modules/users/service.js';
import type { ClientInfo } from '../client.js';
import type { PendingAlert, SecurityActivity } from '../security-activity/recorder.js';
import { refused, type SignInOutcome } from '../sign-in/admission.js';
import { LoginAttempts, type LoginLimits } from '../sign-in/login-attempts.js';
import type { SignInTokens } from '../sign-in/tokens.js';
import {
  type ChosenProof,
  chosenProof,
  type SecondFactorCodes,
  type SecondFactorProof,
  wrongProof,
} from './codes.js';
import { useBounded } from './guess-bound.js';

/** Wrong codes a challenge survives; then it is dead and the sign-in starts again from the password. */
export const CHALLENGE_MAX_FAILURES = 5;

/** What a right code issued: the token, the account as it now is, and the alert to send after commit. */
export interface CompletedSession {
  kind: 'issued';
  token: IssuedToken;
  row: UserRow;
  alert: PendingAlert;
}

/**
 * Taking a scheduled deletion back once the challenge of a cancel got its right code (the deletion's
 * ScheduledDeletions), inside the transaction that used the code: the deletion cancelled and the session
 * issued, or the refusal to answer with (nothing of it written).
 */
export interface DeletionCancelCompletion {
  restoreWithin(
    trx: Executor,
    userId: string,
    client: ClientInfo,
  ): Promise<CompletedSession | { kind: 'refused'; error: ServiceError }>;
}

type Outcome =
  | { kind: 'dead' }
  | { kind: 'wrong'; userId: string }
  | { kind: 'refused'; error: ServiceError }
  | CompletedSession;

/** The second factor a proof is, as the security log names it. */
const factorOf = (proof: ChosenProof): string => (proof.kind === 'code' ? 'totp' : 'recovery_code');

/** What SecondFactorSignIn is built from. */
export interface SecondFactorSignInDeps {
  db: Executor;
  repo: SecondFactorRepo;
  challenges: ChallengesRepo;
  codes: SecondFactorCodes;
  /** Writes the session's token, the gate's rule applied again to the account as it is now. */
  sessionTokens: SignInTokens;
  usersRepo: UsersRepo;
  users: UsersService;
  /** Failed logins per account (RATE_LIMIT_LOGIN_ACCOUNT): wrong codes count there too. */
  limits: LoginLimits;
  /** The completed sign-in is logged (with its first factor's method); a wrong code as a failed one. */
  activity: SecurityActivity;
  /** What a right code for a deletion's cancel leads to. */
  deletionCancel: DeletionCancelCompletion;
}

/**
 * The second step of a sign-in (or of a deletion's cancel) for an account with a second factor on. The
 * first step proves the password, the provider token or a mailed link and gets a challenge from the
 * SessionGate instead of a token; `complete` trades the challenge and a code for the session, applying the
 * gate's rule again (an account disabled, or scheduled for deletion, since the challenge was made gets no
 * session).
 */
export class SecondFactorSignIn {
  private readonly attempts: LoginAttempts;

  constructor(private readonly deps: SecondFactorSignInDeps) {
    this.attempts = new LoginAttempts(deps.limits);
  }

  /**
   * The session for a live challenge and a right code. A dead challenge (used, expired, unknown, or past its
   * wrong codes) is the login's 401 authentication_failed; a wrong code is a 422 on its field and counts on
   * the challenge, on the account's run of wrong codes (guess-bound.ts: growing waits, then a lock) and on
   * its failure counter, and is logged as a failed sign-in. Only this step logs the sign-in: the first one
   * ended at the challenge.
   */
  async complete(challenge: string, offered: SecondFactorProof, client: ClientInfo): Promise<SignInOutcome> {
    const proof = chosenProof(offered, true);
    const hash = hashApiToken(challenge);
    const pending = await this.deps.challenges.findLive(hash, CHALLENGE_MAX_FAILURES);
    if (!pending) return refused(new InvalidCredentialsError());
    let guessed = false;
    return this.attempts.run(
      { account: async () => accountKey(`email:${pending.email.toLowerCase()}`) },
      async () => {
        const outcome = await this.attempt(hash, proof, client);
        if (outcome.kind === 'wrong') {
          guessed = true;
          await this.deps.activity.recordFailedSignIn(outcome.userId, factorOf(proof), client);
          return refused(wrongProof(proof));
        }
        if (outcome.kind === 'dead') return refused(new InvalidCredentialsError());
        if (outcome.kind === 'refused') return outcome;
        this.deps.activity.send(outcome.alert);
        const view = await this.deps.users.view(outcome.row);
        return { kind: 'session', signedIn: { user: { ...view, api_token: outcome.token.token } } };
      },
      () => guessed,
    );
  }

  /**
   * One transaction with the challenge row-locked: of concurrent uses of one challenge, the first uses it up
   * and the others find it gone. A wrong code's failure is committed (the answer is given after).
   */
  private attempt(hash: Buffer, proof: ChosenProof, client: ClientInfo): Promise<Outcome> {
    return writeTransaction(this.deps.db, async (trx): Promise<Outcome> => {
      const challenges = this.deps.challenges.with(trx);
      const live = await challenges.findLive(hash, CHALLENGE_MAX_FAILURES, true);
      if (!live) return { kind: 'dead' };
      const use = await useBounded(this.deps.codes, this.deps.repo.with(trx), live.user_id, proof);
      if (use.kind === 'off') return { kind: 'dead' };
      if (use.kind === 'refused') return use;
      if (use.kind === 'wrong') {
        await challenges.countFailure(live.id);
        return { kind: 'wrong', userId: live.user_id };
      }
      await challenges.delete(live.id);
      if (live.purpose === 'deletion_cancel') {
        return this.deps.deletionCancel.restoreWithin(trx, live.user_id, client);
      }
      return this.signInWithin(trx, live, proof, client);
    });
  }

  private async signInWithin(
    trx: Executor,
    live: LiveChallenge,
    proof: ChosenProof,
    client: ClientInfo,
  ): Promise<Outcome> {
    const credential = { factors: 2, purpose: 'sign_in' } as const;
    const issue = await this.deps.sessionTokens.issueWithin(
      trx,
      live.user_id,
      credential,
      client.userAgent,
      'second_factor',
    );
    if (issue.kind === 'refused') return issue;
    if (issue.kind !== 'issued') return { kind: 'dead' };
    const row = await this.deps.usersRepo.with(trx).findById(live.user_id);
    if (row === undefined) return { kind: 'dead' };
    // The sign-in's event (and a new-device alert) commit with its token.
    const alert = await this.deps.activity.recordSignIn(
      {
        user: row,
        method: live.method,
        client,
        knownDevice: live.known_device,
        secondFactor: factorOf(proof),
      },
      trx,
    );
    return { kind: 'issued', token: issue.token, row, alert };
  }
}
