import { TooManyRequestsError, ValidationError } from '../errors.js';
import {
  type MobileNumber,
  numberPrefix,
  type PhoneRefusal,
  parseMobileNumber,
} from '../lib/phone-number.js';
import type { RateCounter } from '../limits/rate-counter.js';
import type { SmsObserver, SmsRefusalReason } from '../metrics/sms-metrics.js';
import type { SmsLogger } from './transport.js';

/** The counters a code's SMS passes, in the order they are asked (RATE_LIMIT_SMS_*, SMS_DAILY_LIMIT). */
export interface SmsLimits {
  ip: RateCounter;
  numberHour: RateCounter;
  numberDay: RateCounter;
  prefix: RateCounter;
  daily: RateCounter;
}

/** What SmsGuard is built from. */
export interface SmsGuardDeps {
  allowedCountries: readonly string[];
  limits: SmsLimits;
  logger: SmsLogger;
  observer?: Pick<SmsObserver, 'refused'> | undefined;
  /** The clock of the refusal watch (tests). */
  now?: () => number;
}

const REFUSAL_REASON: Record<PhoneRefusal, SmsRefusalReason> = {
  phone_invalid: 'invalid',
  phone_not_mobile: 'not_mobile',
  phone_country: 'country',
};

/** A rise of refusals worth a warning: this many in a minute, and four times the minute before. */
const RISE_FLOOR = 20;
const RISE_FACTOR = 4;
const MINUTE_MS = 60_000;

/**
 * Stops SMS fraud ("SMS pumping": bots asking codes for premium, foreign or sequential numbers, billed to the
 * sender) before a message is written: only mobile numbers of SMS_ALLOWED_COUNTRIES, then limits per client
 * address, per number (an hour, a day), per number block and for the whole deployment, in the shared limit
 * store (Redis across instances). Every refusal is counted by reason; a sudden rise of them is logged as a
 * warning, once a minute, for an operator to look at.
 */
export class SmsGuard {
  #minute = 0;
  #count = 0;
  #previous = 0;
  #warned = false;

  constructor(private readonly deps: SmsGuardDeps) {}

  /** The typed number as E.164, or the 422 on `field` naming why no code can go there. */
  number(typed: string, field = 'phone'): MobileNumber {
    const parsed = parseMobileNumber(typed, this.deps.allowedCountries);
    if ('number' in parsed) return parsed.number;
    this.refused(REFUSAL_REASON[parsed.refused]);
    throw new ValidationError({ [field]: [{ rule: parsed.refused }] });
  }

  /**
   * Counts one message to `number` asked from `ip` on every limit; the first one over throws the 429 (its
   * Retry-After), and the hits already counted for this message are taken back (it is not sent).
   */
  async admit(number: MobileNumber, ip: string): Promise<void> {
    const { limits } = this.deps;
    const steps: [SmsRefusalReason, RateCounter, string][] = [
      ['ip', limits.ip, ip],
      ['number_hour', limits.numberHour, number.e164],
      ['number_day', limits.numberDay, number.e164],
      ['prefix', limits.prefix, numberPrefix(number.e164)],
      ['daily', limits.daily, 'all'],
    ];
    const done: [RateCounter, string][] = [];
    for (const [reason, counter, key] of steps) {
      try {
        await counter.consume(key);
      } catch (error) {
        if (error instanceof TooManyRequestsError) this.refused(reason);
        await Promise.all(done.map(([counted, countedKey]) => counted.refund(countedKey)));
        throw error;
      }
      done.push([counter, key]);
    }
  }

  private refused(reason: SmsRefusalReason): void {
    this.deps.observer?.refused(reason);
    const now = (this.deps.now ?? Date.now)();
    const minute = Math.floor(now / MINUTE_MS);
    if (minute !== this.#minute) {
      this.#previous = minute === this.#minute + 1 ? this.#count : 0;
      this.#minute = minute;
      this.#count = 0;
      this.#warned = false;
    }
    this.#count += 1;
    if (!this.#warned && this.#count >= RISE_FLOOR && this.#count >= RISE_FACTOR * this.#previous) {
      this.#warned = true;
      this.deps.logger.warn(
        { refused_this_minute: this.#count, refused_last_minute: this.#previous, reason },
        'sms refusals rising: a fraud attempt (SMS pumping) may be under way',
      );
    }
  }
}
