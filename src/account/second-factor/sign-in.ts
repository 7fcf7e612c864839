import { type Executor, writeTransaction } from '../../db/transaction.js';
import {
  AccountDisabledError,
  InvalidCredentialsError,
  SecondFactorRequiredError,
  ValidationError,
} from '../../errors.js';
import { newId } from '../../lib/ids.js';
import { hashApiToken, newApiToken } from '../../lib/tokens.js';
import { accountKey, type RateCounter, throttledAttempt } from '../../limits/rate-counter.js';
import type { ChallengesRepo } from '../../modules/second-factor/challenges-repo.js';
import type { SecondFactorRepo } from '../../modules/second-factor/repo.js';
import type { UsersRepo } from '../../modules/users/repo.js';
import type { UsersService } from '../../modules/users/service.js';
import type { SignedIn } from '../../modules/users/view.js';
import type { ClientInfo } from '../client.js';
import type { PendingAlert, SecurityActivity } from '../security-activity/recorder.js';
import type { FirstFactor, SecondFactorGate } from '../sign-in/service.js';
import type { SignInTokens } from '../sign-in/tokens.js';
import {
  type ChosenProof,
  chosenProof,
  type SecondFactorCodes,
  type SecondFactorProof,
  wrongProof,
} from './codes.js';

/** How long a challenge lives: time to open the authenticator app, not to walk away from the login. */
const CHALLENGE_TTL_MS = 5 * 60 * 1000;
/** Wrong codes a challenge survives; then it is dead and the sign-in starts again from the password. */
export const CHALLENGE_MAX_FAILURES = 5;

type Outcome =
  | { kind: 'dead' }
  | { kind: 'wrong'; userId: string }
  | { kind: 'disabled' }
  | { kind: 'issued'; token: string; userId: string; alert: PendingAlert };

/** The second factor a proof is, as the security log names it. */
const factorOf = (proof: ChosenProof): string => (proof.kind === 'code' ? 'totp' : 'recovery_code');

/** What SecondFactorSignIn is built from. */
export interface SecondFactorSignInDeps {
  db: Executor;
  repo: SecondFactorRepo;
  challenges: ChallengesRepo;
  codes: SecondFactorCodes;
  signInTokens: SignInTokens;
  usersRepo: UsersRepo;
  users: UsersService;
  /** Failed email logins per account (RATE_LIMIT_LOGIN_ACCOUNT): wrong codes count there too. */
  accountFailures: RateCounter;
  /** The completed sign-in is logged (with its first factor's method); a wrong code as a failed one. */
  activity: SecurityActivity;
}

/**
 * The second step of a sign-in for an account with a second factor on. The first step (sign-in/service.ts)
 * proves the password or the provider token and, through `demandIfEnabled`, gets a challenge instead of a
 * token; `complete` trades the challenge and a code for the token.
 */
export class SecondFactorSignIn implements SecondFactorGate {
  constructor(private readonly deps: SecondFactorSignInDeps) {}

  isEnabled(userId: string): Promise<boolean> {
    return this.deps.repo.isEnabled(userId);
  }

  async demandIfEnabled(userId: string, first: FirstFactor, enabled?: boolean): Promise<void> {
    if (!(enabled ?? (await this.deps.repo.isEnabled(userId)))) return;
    const challenge = newApiToken();
    await writeTransaction(this.deps.db, (trx) =>
      this.deps.challenges.with(trx).insert({
        id: newId(),
        userId,
        challengeHash: hashApiToken(challenge),
        expiresAt: new Date(Date.now() + CHALLENGE_TTL_MS),
        method: first.method,
        knownDevice: first.knownDevice,
      }),
    );
    throw new SecondFactorRequiredError(challenge);
  }

  /**
   * The token for a live challenge and a right code. A dead challenge (used, expired, unknown, or past its
   * wrong codes) is the login's 401 authentication_failed; a wrong code is a 422 on its field and counts on
   * the challenge and on the account's failure counter, and is logged as a failed sign-in. Only this step
   * logs the sign-in: the first one ended at the challenge.
   */
  async complete(challenge: string, offered: SecondFactorProof, client: ClientInfo): Promise<SignedIn> {
    const proof = chosenProof(offered, true);
    const hash = hashApiToken(challenge);
    const pending = await this.deps.challenges.findLive(hash, CHALLENGE_MAX_FAILURES);
    if (!pending) throw new InvalidCredentialsError();
    const outcome = await throttledAttempt(
      this.deps.accountFailures,
      accountKey(`email:${pending.email.toLowerCase()}`),
      async () => {
        const result = await this.attempt(hash, proof, client);
        if (result.kind === 'wrong') {
          await this.deps.activity.recordFailedSignIn(result.userId, factorOf(proof), client);
          throw wrongProof(proof);
        }
        return result;
      },
      (error) => error instanceof ValidationError,
    );
    if (outcome.kind === 'dead') throw new InvalidCredentialsError();
    if (outcome.kind === 'disabled') throw new AccountDisabledError();
    if (outcome.kind !== 'issued') throw new InvalidCredentialsError();
    this.deps.activity.send(outcome.alert);
    const user = await this.deps.usersRepo.findById(outcome.userId);
    if (!user) throw new InvalidCredentialsError();
    return { user: { ...(await this.deps.users.view(user)), api_token: outcome.token } };
  }

  /**
   * One transaction with the challenge row-locked: of concurrent uses of one challenge, the first uses it up
   * and the others find it gone. A wrong code's failure is committed (the answer is thrown after).
   */
  private attempt(hash: Buffer, proof: ChosenProof, client: ClientInfo): Promise<Outcome> {
    return writeTransaction(this.deps.db, async (trx): Promise<Outcome> => {
      const challenges = this.deps.challenges.with(trx);
      const repo = this.deps.repo.with(trx);
      const live = await challenges.findLive(hash, CHALLENGE_MAX_FAILURES, true);
      if (!live) return { kind: 'dead' };
      const credential = await repo.findTotp(live.user_id);
      if (!credential?.enabled_at) return { kind: 'dead' };
      if (!(await this.deps.codes.use(repo, live.user_id, credential, proof))) {
        await challenges.countFailure(live.id);
        return { kind: 'wrong', userId: live.user_id };
      }
      await challenges.delete(live.id);
      const issue = await this.deps.signInTokens.afterSecondFactor(trx, live.user_id, client.userAgent);
      if (issue.kind === 'disabled') return issue;
      // The sign-in's event (and a new-device alert) commit with its token.
      const alert = await this.deps.activity.recordSignIn(
        {
          user: {
            id: live.user_id,
            email: live.email,
            username: live.username,
            email_verified: live.email_verified,
          },
          method: live.method,
          client,
          knownDevice: live.known_device,
          secondFactor: factorOf(proof),
        },
        trx,
      );
      return { kind: 'issued', token: issue.token.token, userId: live.user_id, alert };
    });
  }
}
