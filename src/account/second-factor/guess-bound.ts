import { ValidationError } from '../../errors.js';
import { tooManyRequests } from '../../limits/rate-counter.js';
import type { SecondFactorRepo, TotpCredential } from '../../modules/second-factor/repo.js';
import type { ChosenProof, SecondFactorCodes } from './codes.js';

/**
 * Wrong codes in a row after which the next code is still checked at once: one challenge's worth (it dies
 * after 5), so an owner who mistypes through a whole challenge still signs in at once with the next.
 */
const FREE_WRONG_CODES = 5;
/** Wrong codes in a row after which the authenticator takes no code until its owner acts (SP 800-63B §5.2.2). */
export const MAX_WRONG_CODES = 100;
/** The wait after the 6th wrong code in a row; it doubles with each further one, up to MAX_WAIT_MS. */
const FIRST_WAIT_MS = 30_000;
const MAX_WAIT_MS = 3_600_000;

/** How long the next code must wait after `failures` wrong codes in a row. */
export function waitAfter(failures: number): number {
  if (failures <= FREE_WRONG_CODES) return 0;
  return Math.min(MAX_WAIT_MS, FIRST_WAIT_MS * 2 ** Math.min(failures - FREE_WRONG_CODES - 1, 20));
}

/** What checking a proof under the bound came to. */
export type BoundedUse =
  | { kind: 'right' }
  | { kind: 'wrong' }
  /** No authenticator is on (removed meanwhile). */
  | { kind: 'off' }
  /**
   * Refused unchecked, or no guess: the answer (429 with Retry-After, the 422 of a locked authenticator, or
   * of a code whose step was used already).
   */
  | { kind: 'refused'; error: ValidationError | ReturnType<typeof tooManyRequests> };

/** A 422 about a code that is no guess at the secret: every counter of wrong codes skips it. */
export class UncountedCodeError extends ValidationError {}

/** The 422 of a locked authenticator: no code was checked, so it is no guess (the counters skip it). */
export class SecondFactorLockedError extends UncountedCodeError {
  constructor() {
    super({ code: [{ rule: 'second_factor_locked' }] });
  }
}

/**
 * The 422 of an authenticator code whose time step was used already (a double submit of a right code, or
 * a replay): the same answer as a wrong code, so a replay learns nothing, but no guess (the counters skip
 * it, and the run of wrong codes is left as it was).
 */
export class SecondFactorCodeReusedError extends UncountedCodeError {
  constructor() {
    super({ code: [{ rule: 'second_factor_code' }] });
  }
}

const locked = () => new SecondFactorLockedError();

/**
 * Whether `proof` may be checked now, given the run of wrong codes: an authenticator code not once the run
 * reached MAX_WRONG_CODES (a recovery code still is: 50 random bits each, the owner's way back in, and under
 * the longest wait by then), and no code before the wait after the last wrong one is over.
 */
export function refusalOf(
  credential: Pick<TotpCredential, 'failed_attempts' | 'last_failed_at'>,
  proof: ChosenProof,
  now: number,
): BoundedUse | undefined {
  const failures = credential.failed_attempts;
  if (proof.kind === 'code' && failures >= MAX_WRONG_CODES) return { kind: 'refused', error: locked() };
  const last = credential.last_failed_at?.getTime();
  const left = last === undefined ? 0 : last + waitAfter(failures) - now;
  if (left > 0) return { kind: 'refused', error: tooManyRequests(left) };
  return undefined;
}

/**
 * Checks `proof` (and uses it up) under the account's bound on wrong codes, inside the caller's transaction
 * (`repo` bound to it): the authenticator's row is locked first, so concurrent codes for one account queue
 * and every wrong one counts. A wrong code extends the run; a right one ends it.
 */
export async function useBounded(
  codes: SecondFactorCodes,
  repo: SecondFactorRepo,
  userId: string,
  proof: ChosenProof,
  now: () => number = Date.now,
): Promise<BoundedUse> {
  const credential = await repo.findTotp(userId, true);
  if (!credential?.enabled_at) return { kind: 'off' };
  const refusal = refusalOf(credential, proof, now());
  if (refusal) return refusal;
  const used = await codes.use(repo, userId, credential, proof);
  if (used === 'reused') return { kind: 'refused', error: new SecondFactorCodeReusedError() };
  if (used === 'wrong') {
    await repo.countFailure(userId);
    return { kind: 'wrong' };
  }
  await repo.clearFailures(userId);
  return { kind: 'right' };
}
