import { createHash } from 'node:crypto';
import { TooManyRequestsError } from '../errors.js';
import { clientAddressKey } from './client-address.js';

/**
 * One rate limit: a counter per key (an IP, an email and IP, …) in a fixed window. Services and endpoints see
 * only this; whether the counts live in this process or in Redis is decided once, in `open-rate-limits.ts`.
 */
export interface RateCounter {
  /** Counts one hit on the key; throws TooManyRequestsError when the key is over its limit. */
  consume(key: string): Promise<void>;
  /** Takes one hit back (the attempt failed for a reason that was not the client's). */
  refund(key: string): Promise<void>;
  /** Forgets the key (a successful login clears its failures). */
  reset(key: string): Promise<void>;
}

/** The counters the service uses, and how to let go of their store. */
export interface RateLimits {
  loginFailures: RateCounter;
  loginIp: RateCounter;
  validateIp: RateCounter;
  registerIp: RateCounter;
  /** Image uploads per user. */
  imageUpload: RateCounter;
  /** Failed logins per account across every address. */
  loginAccount: RateCounter;
  emailResend: RateCounter;
  passwordForgotEmail: RateCounter;
  passwordForgotIp: RateCounter;
  /** Code mails asked for per address (auth/email-code), and per IP. */
  emailCodeEmail: RateCounter;
  emailCodeIp: RateCounter;
  /** Data exports started per user. */
  dataExport: RateCounter;
  /** Mails per address (mail/address-cap.ts). */
  mailAddress: RateCounter;
  /** Security alerts per account and kind (mail/address-cap.ts). */
  mailAlerts: RateCounter;
  /** Identity verifications started or checked per user (each asks PortOne, which bills per verification). */
  identityVerification: RateCounter;
  /** Token introspections per service credential (oauth/introspect). */
  introspection: RateCounter;
  /** Text messages per number (an hour, a day), per client address, per number prefix, and all of them. */
  smsNumberHour: RateCounter;
  smsNumberDay: RateCounter;
  smsIp: RateCounter;
  smsPrefix: RateCounter;
  smsDaily: RateCounter;
  /** Resolves when the store is connected, or has failed to connect (the counters then fall back). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

/** Limits switched off (RATE_LIMIT_ENABLED=false): every hit passes, nothing is stored. */
export const unlimited: RateCounter = {
  consume: async () => {},
  refund: async () => {},
  reset: async () => {},
};

/** Every counter unlimited (RATE_LIMIT_ENABLED=false, and the operator commands, which have no clients). */
export function unlimitedRateLimits(): RateLimits {
  return {
    loginFailures: unlimited,
    loginIp: unlimited,
    validateIp: unlimited,
    registerIp: unlimited,
    imageUpload: unlimited,
    loginAccount: unlimited,
    emailResend: unlimited,
    passwordForgotEmail: unlimited,
    passwordForgotIp: unlimited,
    emailCodeEmail: unlimited,
    emailCodeIp: unlimited,
    dataExport: unlimited,
    mailAddress: unlimited,
    mailAlerts: unlimited,
    identityVerification: unlimited,
    introspection: unlimited,
    smsNumberHour: unlimited,
    smsNumberDay: unlimited,
    smsIp: unlimited,
    smsPrefix: unlimited,
    smsDaily: unlimited,
    ready: async () => {},
    close: async () => {},
  };
}

/** Retry-After is whole seconds and never 0: a client told "retry after 0" would hammer again at once. */
export function tooManyRequests(msBeforeNext: number): TooManyRequestsError {
  return new TooManyRequestsError(Math.max(1, Math.ceil(msBeforeNext / 1000)));
}

/**
 * Runs one login attempt under a failure counter. The hit is counted before the attempt (atomically, so a
 * burst of parallel guesses cannot all slip under the limit and no password is hashed once the key is over
 * it), then a success forgets the key and an error that is not a failed credential gives the hit back: only
 * failed logins count, and a user who finally gets it right starts afresh.
 */
export async function throttledAttempt<T>(
  counter: RateCounter,
  key: string,
  attempt: () => Promise<T>,
  isFailedCredential: (error: unknown) => boolean,
): Promise<T> {
  await counter.consume(key);
  let result: T;
  try {
    result = await attempt();
  } catch (error) {
    if (!isFailedCredential(error)) await counter.refund(key);
    throw error;
  }
  await counter.reset(key);
  return result;
}

/**
 * The key of a login-failure counter: the account's identifier (an email, lower-cased by the caller; or a
 * provider identity) with the client's address (an IPv6 client's /64). Hashed, so the store never holds
 * email addresses in the clear.
 */
export function attemptKey(identifier: string, ip: string): string {
  return createHash('sha256')
    .update(`${identifier}\n${clientAddressKey(ip)}`)
    .digest('base64url');
}

/**
 * The key of a per-account counter (every address together): the account's identifier, hashed like
 * attemptKey's so the store never holds email addresses in the clear.
 */
export function accountKey(identifier: string): string {
  return createHash('sha256').update(`account\n${identifier}`).digest('base64url');
}
