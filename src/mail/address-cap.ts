import { createHash } from 'node:crypto';
import { TooManyRequestsError } from '../errors.js';
import type { RateCounter } from '../limits/rate-counter.js';

/**
 * The mails no signed-in action can repeat, and that are therefore never held back: a password-reset link
 * (asked for signed out, and limited per address already: holding it would let anyone delay the owner's
 * reset), the consent reminders the server sends on its own schedule, and the cap's own summary.
 */
const UNCAPPED_KINDS: ReadonlySet<string> = new Set(['password_reset', 'consent_reconfirm', 'mail_summary']);

/** The counter's key: hashed, so the limit store never holds addresses in the clear. */
function addressKey(address: string): string {
  return createHash('sha256').update(`mail:${address.toLowerCase()}`).digest('base64url');
}

/**
 * At most so many mails to one address a window (RATE_LIMIT_MAIL_ADDRESS, 5 an hour by default), whatever
 * makes them: a signed-in attacker repeating an action (a password change, a delete and cancel, an email
 * switched to someone's address and back) cannot flood a mailbox. The count lives in the rate-limit store,
 * so every instance shares it (Redis when REDIS_URL is set). A mail over the cap is folded: kept without its
 * body until the window is over, then listed in one summary (mail/summaries.ts).
 */
export class AddressCap {
  constructor(private readonly counter: RateCounter) {}

  /**
   * Counts a mail of `kind` to `address`: undefined when it may go now, else when the address's window
   * ends (the mail is to be folded). A mail whose transaction then rolls back has still been counted:
   * the cap errs towards fewer mails.
   */
  async admit(address: string, kind: string): Promise<Date | undefined> {
    if (UNCAPPED_KINDS.has(kind)) return undefined;
    try {
      await this.counter.consume(addressKey(address));
      return undefined;
    } catch (error) {
      if (!(error instanceof TooManyRequestsError)) throw error;
      return new Date(Date.now() + error.retryAfterSeconds * 1000);
    }
  }
}
