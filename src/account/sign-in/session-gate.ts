import { type Executor, writeTransaction } from '../../db/transaction.js';
import { newId } from '../../lib/ids.js';
import { hashApiToken, newApiToken } from '../../lib/tokens.js';
import type { ChallengesRepo } from '../../modules/second-factor/challenges-repo.js';
import type { SecondFactorRepo } from '../../modules/second-factor/repo.js';
import {
  type Admission,
  admission,
  type Credential,
  type GateState,
  type SessionPurpose,
} from './admission.js';

/** How long a challenge lives: time to open the authenticator app, not to walk away from the login. */
const CHALLENGE_TTL_MS = 5 * 60 * 1000;

/** A sign-in's first factor: its method (`email`, a provider, `password_reset`, …), and a device of record? */
export interface FirstFactor {
  method: string;
  knownDevice: boolean;
}

/** The gate's answer before anything is written: go on to the session, a challenge made, or no session. */
export type GateAnswer =
  | { kind: 'session' }
  | { kind: 'second_factor'; challenge: string }
  | Extract<Admission, { kind: 'refused' }>;

/** What SessionGate is built from. */
export interface SessionGateDeps {
  db: Executor;
  secondFactorRepo: SecondFactorRepo;
  challenges: ChallengesRepo;
}

/**
 * The one place that decides whether an account may have a session now, and how (the rule: admission.ts):
 * every path that issues an API token — password, provider and passkey sign-in, the second factor's
 * completion, a deletion's cancel, a password reset — asks `admit` once its proof checked out, then has the
 * token written by SignInTokens (tokens.ts), which applies the same rule again under the account row's lock.
 * `second_factor` makes the challenge whose completion (auth/login/second-factor) leads to `purpose`.
 */
export class SessionGate {
  constructor(private readonly deps: SessionGateDeps) {}

  /**
   * The rule for `account` (its row as read with the proof, or its id: read here) and what proved it; for
   * `second_factor` the challenge is made now.
   */
  async admit(
    account: Omit<GateState, 'second_factor_enabled'> & { id: string; second_factor_enabled?: boolean },
    first: FirstFactor,
    credential: Credential,
  ): Promise<GateAnswer> {
    // Whether a second factor is on is read only when the rest let the account through.
    const without = admission({ ...account, second_factor_enabled: false }, credential);
    if (without.kind === 'refused') return without;
    const secondFactorOn =
      account.second_factor_enabled ?? (await this.deps.secondFactorRepo.isEnabled(account.id));
    const admitted = admission({ ...account, second_factor_enabled: secondFactorOn }, credential);
    if (admitted.kind !== 'second_factor') return admitted;
    return { kind: 'second_factor', challenge: await this.challenge(account.id, first, credential.purpose) };
  }

  /** A second-factor challenge (stored as its SHA-256): what the 401 second_factor_required carries. */
  async challenge(userId: string, first: FirstFactor, purpose: SessionPurpose): Promise<string> {
    const challenge = newApiToken();
    await writeTransaction(this.deps.db, (trx) =>
      this.deps.challenges.with(trx).insert({
        id: newId(),
        userId,
        challengeHash: hashApiToken(challenge),
        expiresAt: new Date(Date.now() + CHALLENGE_TTL_MS),
        method: first.method,
        knownDevice: first.knownDevice,
        purpose,
      }),
    );
    return challenge;
  }

  /**
   * Ends, inside the caller's transaction, every sign-in of the account still waiting for its second factor:
   * its challenges can no longer become a session.
   */
  async endChallengesWithin(trx: Executor, userId: string): Promise<void> {
    await this.deps.challenges.with(trx).deleteAllOf(userId);
  }
}
