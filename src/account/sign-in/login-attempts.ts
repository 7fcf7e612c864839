import {
  InvalidCredentialsError,
  type ServiceError,
  TooManyRequestsError,
  ValidationError,
} from '../../errors.js';
import { type RateCounter, unlimited } from '../../limits/rate-counter.js';
import { refused, type SignInOutcome } from './admission.js';

/** The login-failure counters (docs/SECURITY.md). */
export interface LoginLimits {
  /** Failed logins per (lower-cased email, IP), per (provider identity, IP), per (passkey, IP). */
  loginFailures: RateCounter;
  /** Failed logins per account from every address (RATE_LIMIT_LOGIN_ACCOUNT). */
  accountFailures?: RateCounter;
}

/** A wrong password, an account without one, an unknown email (the 422), a wrong second-factor code. */
export const isFailedLogin = (error: ServiceError): boolean =>
  error instanceof InvalidCredentialsError || error instanceof ValidationError;

/** What one attempt counts on; each key is hashed by its maker (rate-counter.ts). */
export interface AttemptKeys {
  /** The per-(identifier, IP) key. */
  pair?: string;
  /**
   * The per-account key, asked for once the pair's counter let the attempt through; undefined: not counted
   * per account (a known device, or no account to count on).
   */
  account?: () => Promise<string | undefined>;
}

/**
 * The login-attempt policy, one for every way to sign in. The hits are counted before the attempt
 * (atomically, so a burst of parallel guesses cannot all slip under a limit, and nothing is checked once a
 * key is over it); then a failed credential keeps its hits, a session clears the keys (a user who finally
 * gets it right starts afresh), and any other outcome (the second-factor step, a refusal the credential
 * was right for, a fault) gives them back: only failed logins count. A key over its limit is the outcome
 * `refused` with the 429.
 */
export class LoginAttempts {
  private readonly pairs: RateCounter;
  private readonly accounts: RateCounter;

  constructor(limits: LoginLimits) {
    this.pairs = limits.loginFailures;
    this.accounts = limits.accountFailures ?? unlimited;
  }

  async run(
    keys: AttemptKeys,
    attempt: () => Promise<SignInOutcome>,
    isFailure: (error: ServiceError) => boolean = isFailedLogin,
  ): Promise<SignInOutcome> {
    const counted: { counter: RateCounter; key: string }[] = [];
    const giveBack = () => Promise.all(counted.map(({ counter, key }) => counter.refund(key)));
    let outcome: SignInOutcome;
    try {
      if (keys.pair !== undefined) await this.count(counted, this.pairs, keys.pair);
      const account = keys.account ? await keys.account() : undefined;
      if (account !== undefined) await this.count(counted, this.accounts, account);
      outcome = await attempt();
    } catch (error) {
      await giveBack();
      if (error instanceof TooManyRequestsError) return refused(error);
      throw error;
    }
    if (outcome.kind === 'session') {
      await Promise.all(counted.map(({ counter, key }) => counter.reset(key)));
    } else if (outcome.kind === 'second_factor' || !isFailure(outcome.error)) {
      await giveBack();
    }
    return outcome;
  }

  private async count(
    counted: { counter: RateCounter; key: string }[],
    counter: RateCounter,
    key: string,
  ): Promise<void> {
    await counter.consume(key);
    counted.push({ counter, key });
  }
}
