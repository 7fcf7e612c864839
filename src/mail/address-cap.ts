import { createHash } from 'node:crypto';
import { TooManyRequestsError } from '../errors.js';
import type { RateCounter } from '../limits/rate-counter.js';

/**
 * The mails no signed-in action can repeat, and that are therefore never held back: a password-reset link
 * (asked for signed out, and limited per address already: holding it would let anyone delay the owner's
 * reset), the consent reminders the server sends on its own schedule, and the cap's own summary.
 */
const UNCAPPED_KINDS: ReadonlySet<string> = new Set(['password_reset', 'consent_reconfirm', 'mail_summary']);

/** The security alerts' kinds (mail/security-alerts.ts): each one's cap is its account's, not its address's. */
const ALERT_KIND = /^alert_/;

/**
 * The counter's key for an address: hashed, so the limit store never holds addresses in the clear. Lower-cased
 * first: emails are ASCII (validation/patterns.ts), so every spelling of one address (`Victim@`, `vIctim@`,
 * `VICTIM@`) is one key, as it is one mailbox.
 */
function addressKey(address: string): string {
  return createHash('sha256').update(`mail:${address.toLowerCase()}`).digest('base64url');
}

/** The counter's key for one kind of alert to one account. */
function alertKey(accountId: string, kind: string): string {
  return `alert:${accountId}:${kind}`;
}

/** The two counters of the cap, both in the rate-limit store. */
export interface AddressCapCounters {
  /** RATE_LIMIT_MAIL_ADDRESS: every capped mail to one address but an account's own alerts. */
  address: RateCounter;
  /** RATE_LIMIT_MAIL_ALERTS: the alerts of one kind to one account's own verified address. */
  alerts: RateCounter;
}

/**
 * How many mails may go at once, and to whom. Two budgets, so that nobody can spend the owner's:
 *
 * - **Per address** (RATE_LIMIT_MAIL_ADDRESS, 5 an hour by default): every mail a stranger can make go to
 *   an address — a guardian request naming it, an email change's confirmation link, a verification mail
 *   resent to an unverified address, a deletion's cancel link or an export's mail to an account's address
 *   nobody proved. A signed-in attacker repeating an action (an email switched to someone's address and
 *   back, guardian requests from several accounts) cannot flood a mailbox.
 * - **Per account and alert** (RATE_LIMIT_MAIL_ALERTS, 3 an hour of each kind by default): a security alert
 *   to the account's own verified address (`ownAccount`). It never counts on the address, so third-party
 *   mail to that address cannot hold the owner's alerts back, and its own cap stops someone holding a
 *   session from mail-bombing the owner; split by kind, so a flood of one action never holds back the
 *   alert of another (a password change after ten passkey additions still goes at once).
 *
 * The counts live in the rate-limit store, so every instance shares them (Redis when REDIS_URL is set). A
 * mail over its cap is folded: kept without its body until the window is over, then listed in one summary
 * to its address (mail/summaries.ts).
 */
export class AddressCap {
  constructor(private readonly counters: AddressCapCounters) {}

  /**
   * Counts a mail of `kind` to `address`: undefined when it may go now, else when its window ends (the mail
   * is to be folded). `ownAccount`: the mail is a security alert to this account's own verified address.
   * A mail whose transaction then rolls back has still been counted: the cap errs towards fewer mails.
   */
  async admit(address: string, kind: string, ownAccount?: string): Promise<Date | undefined> {
    if (UNCAPPED_KINDS.has(kind)) return undefined;
    const alert = ownAccount !== undefined && ALERT_KIND.test(kind);
    const [counter, key] = alert
      ? [this.counters.alerts, alertKey(ownAccount, kind)]
      : [this.counters.address, addressKey(address)];
    try {
      await counter.consume(key);
      return undefined;
    } catch (error) {
      if (!(error instanceof TooManyRequestsError)) throw error;
      return new Date(Date.now() + error.retryAfterSeconds * 1000);
    }
  }
}
