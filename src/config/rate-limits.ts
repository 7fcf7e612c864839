import { boolean, ConfigError, type Env, integer, raw } from './env.js';

/** At most `points` hits per key in a fixed window of `windowSeconds`. */
export interface Limit {
  points: number;
  windowSeconds: number;
}

/**
 * Throttles on the endpoints an attacker scripts first. Defaults follow OWASP ASVS 5.0 V6.3 and NIST 800-63B
 * (at most 100 failed attempts per account per hour; 10 per 15 minutes stays well below that).
 */
export interface RateLimitsConfig {
  enabled: boolean;
  /** Prefix of every Redis key, so deployments (and test runs) sharing one Redis keep apart. */
  keyPrefix: string;
  /** Failed logins per (lower-cased email, IP), and per (provider identity, IP). */
  loginFailures: Limit;
  /** Login requests per IP, email and provider logins together. */
  loginIp: Limit;
  /** validate/email, validate/username and validate/slug requests per IP, together. */
  validateIp: Limit;
  /** Registration requests per IP. */
  registerIp: Limit;
  /**
   * How long one Redis command may take before the counter falls back to this process (REDIS_COMMAND_TIMEOUT_MS).
   * Small on purpose: a limit check runs on the request path, and Redis answers in well under a millisecond.
   */
  redisCommandTimeoutMs: number;
  /** Image uploads per signed-in user (profile pictures, post images). */
  imageUpload: Limit;
  /** Failed email logins per account, whatever the address (see docs/SECURITY.md for the owner's way in). */
  loginAccount: Limit;
  /** Verification mails a signed-in user may ask for again (user/email/resend), per user. */
  emailResend: Limit;
  /** Password-reset mails per (lower-cased) email address, whether or not an account has it. */
  passwordForgotEmail: Limit;
  /** auth/password/forgot requests per IP. */
  passwordForgotIp: Limit;
  /** auth/email-code requests per (lower-cased) email address, whether or not an account has it. */
  emailCodeEmail: Limit;
  /** auth/email-code requests per IP. */
  emailCodeIp: Limit;
  /** Data exports a user may start (user/export), per user; a request answered by a pending one is free. */
  dataExport: Limit;
  /** Mails to one (lower-cased) address that a stranger can trigger: all but the owner's alerts (mail/address-cap.ts). */
  mailAddress: Limit;
  /** Security alerts of one kind to one account's own verified address (mail/address-cap.ts). */
  mailAlerts: Limit;
  /** identity/start and identity/verify requests per signed-in user, together. */
  identityVerification: Limit;
  /** oauth/introspect requests per service credential. */
  introspection: Limit;
  /** Text messages per mobile number in an hour, and in a day (SMS fraud: one number pumped). */
  smsNumberHour: Limit;
  smsNumberDay: Limit;
  /** Text messages asked for per client address. */
  smsIp: Limit;
  /** Text messages per number prefix (the number less its last 4 digits): a block of numbers pumped. */
  smsPrefix: Limit;
  /** SMS_DAILY_LIMIT: every text message of the deployment in a day, whoever asks. */
  smsDaily: Limit;
}

export function parseRedisUrl(env: Env): string | undefined {
  const value = raw(env, 'REDIS_URL');
  if (value === undefined) return undefined;
  // The value may hold a password: name the variable, never echo it.
  if (!/^rediss?:\/\/[^\s]*$/.test(value))
    throw new ConfigError('REDIS_URL', 'must be a redis:// or rediss:// URL');
  return value;
}

const WINDOW_UNITS: Record<string, number> = { s: 1, m: 60, h: 3600 };
const MAX_WINDOW_SECONDS = 24 * 3600;

/** A limit as `N/<window>`: `10/15m` is 10 per 15 minutes; units s, m, h; `60/m` means `60/1m`. */
function limit(env: Env, name: string, fallback: string): Limit {
  const value = raw(env, name) ?? fallback;
  const match = /^(\d+)\s*\/\s*(\d*)\s*([smh])$/i.exec(value);
  const points = Number(match?.[1]);
  const windowSeconds = Number(match?.[2] || '1') * (WINDOW_UNITS[match?.[3]?.toLowerCase() ?? ''] ?? 0);
  if (!match || points < 1 || points > 1_000_000 || windowSeconds < 1 || windowSeconds > MAX_WINDOW_SECONDS) {
    throw new ConfigError(
      name,
      `must be a limit such as 10/15m (1 to 1000000 per 1s to 24h; units s, m, h) (got "${value}")`,
    );
  }
  return { points, windowSeconds };
}

export function parseRateLimits(env: Env): RateLimitsConfig {
  const keyPrefix = raw(env, 'RATE_LIMIT_KEY_PREFIX') ?? 'accounts:rl';
  if (!/^[A-Za-z0-9:._-]{1,100}$/.test(keyPrefix)) {
    throw new ConfigError(
      'RATE_LIMIT_KEY_PREFIX',
      `must be 1 to 100 of A-Z a-z 0-9 : . _ - (got "${keyPrefix}")`,
    );
  }
  return {
    enabled: boolean(env, 'RATE_LIMIT_ENABLED', true),
    keyPrefix,
    loginFailures: limit(env, 'RATE_LIMIT_LOGIN_FAILURES', '10/15m'),
    loginIp: limit(env, 'RATE_LIMIT_LOGIN_IP', '100/15m'),
    validateIp: limit(env, 'RATE_LIMIT_VALIDATE_IP', '60/1m'),
    registerIp: limit(env, 'RATE_LIMIT_REGISTER_IP', '20/1h'),
    redisCommandTimeoutMs: integer(env, 'REDIS_COMMAND_TIMEOUT_MS', 100, 1, 60_000),
    imageUpload: limit(env, 'RATE_LIMIT_IMAGE_UPLOAD', '20/1h'),
    loginAccount: limit(env, 'RATE_LIMIT_LOGIN_ACCOUNT', '100/1h'),
    emailResend: limit(env, 'RATE_LIMIT_EMAIL_RESEND', '3/1h'),
    passwordForgotEmail: limit(env, 'RATE_LIMIT_PASSWORD_FORGOT_EMAIL', '3/1h'),
    passwordForgotIp: limit(env, 'RATE_LIMIT_PASSWORD_FORGOT_IP', '20/1h'),
    emailCodeEmail: limit(env, 'RATE_LIMIT_EMAIL_CODE_EMAIL', '5/1h'),
    emailCodeIp: limit(env, 'RATE_LIMIT_EMAIL_CODE_IP', '20/1h'),
    dataExport: limit(env, 'RATE_LIMIT_DATA_EXPORT', '1/1h'),
    mailAddress: limit(env, 'RATE_LIMIT_MAIL_ADDRESS', '5/1h'),
    mailAlerts: limit(env, 'RATE_LIMIT_MAIL_ALERTS', '3/1h'),
    identityVerification: limit(env, 'RATE_LIMIT_IDENTITY_VERIFICATION', '10/1h'),
    introspection: limit(env, 'RATE_LIMIT_INTROSPECTION', '6000/1m'),
    smsNumberHour: limit(env, 'RATE_LIMIT_SMS_NUMBER_HOUR', '3/1h'),
    smsNumberDay: limit(env, 'RATE_LIMIT_SMS_NUMBER_DAY', '10/24h'),
    smsIp: limit(env, 'RATE_LIMIT_SMS_IP', '10/1h'),
    smsPrefix: limit(env, 'RATE_LIMIT_SMS_PREFIX', '30/1h'),
    smsDaily: { points: integer(env, 'SMS_DAILY_LIMIT', 1000, 1, 10_000_000), windowSeconds: 24 * 3600 },
  };
}
