import {
  AccountDeletionScheduledError,
  AccountDisabledError,
  SecondFactorRequiredError,
  type ServiceError,
} from '../../errors.js';
import type { SignedIn } from '../../modules/users/view.js';

/**
 * What a session is asked for: `sign_in`, or `deletion_cancel` (taking a scheduled deletion back, which
 * ends in a session too).
 */
export type SessionPurpose = 'sign_in' | 'deletion_cancel';

/** The account's state the rule reads (a user row, or SignInTokens' re-read under a lock). */
export interface GateState {
  disabled_at: Date | null;
  deletion_due_at: Date | null;
  second_factor_enabled: boolean;
}

/**
 * What proved the request: `factors` 1 for a password, a provider's token, a reset link or a cancel link;
 * 2 for a passkey, or a first factor completed with the second.
 */
export interface Credential {
  factors: 1 | 2;
  purpose: SessionPurpose;
}

/** What the rule says: a session now, the second factor first, or no session (with the answer to give). */
export type Admission =
  | { kind: 'session' }
  | { kind: 'second_factor' }
  | { kind: 'refused'; error: AccountDisabledError | AccountDeletionScheduledError };

/**
 * The one rule of who may have a session now, and how (every path that issues a token applies it, through
 * SessionGate and SignInTokens). A disabled account never; an account whose deletion is due only by taking
 * the deletion back (the 409 otherwise, so nothing made during the grace period outlives it); an account with
 * a second factor on only with two factors. The next account state (a guardian's consent pending, a lock)
 * is one more line here.
 */
export function admission(state: GateState, credential: Credential): Admission {
  if (state.disabled_at !== null) return { kind: 'refused', error: new AccountDisabledError() };
  if (credential.purpose === 'sign_in' && state.deletion_due_at !== null) {
    return { kind: 'refused', error: new AccountDeletionScheduledError(state.deletion_due_at) };
  }
  if (state.second_factor_enabled && credential.factors < 2) return { kind: 'second_factor' };
  return { kind: 'session' };
}

/**
 * What a sign-in came to. `refused` carries the answer: the login's 401 for a wrong credential (what the
 * login-attempt policy counts), 409 for a scheduled deletion, 401 account_disabled, a 422.
 */
export type SignInOutcome =
  | { kind: 'session'; signedIn: SignedIn }
  | { kind: 'second_factor'; challenge: string }
  | { kind: 'refused'; error: ServiceError };

export type Refused = Extract<SignInOutcome, { kind: 'refused' }>;

export const refused = (error: ServiceError): Refused => ({ kind: 'refused', error });

/** The route's answer to an outcome: the login's data, or the error the envelope maps (src/http/errors.ts). */
export function answered(outcome: SignInOutcome): SignedIn {
  if (outcome.kind === 'session') return outcome.signedIn;
  if (outcome.kind === 'second_factor') throw new SecondFactorRequiredError(outcome.challenge);
  throw outcome.error;
}
