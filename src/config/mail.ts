import { ConfigError, type Env, integer, raw } from './env.js';

/** Where and how mail goes out: `log` writes the outbox row and a log line; `smtp` sends it. */
export interface MailConfig {
  transport: 'log' | 'smtp';
  /** Set when `transport` is `smtp`. */
  smtp: SmtpConfig | undefined;
  /** The From header, e.g. `Accounts <no-reply@example.com>`. */
  from: string;
  retry: MailRetryConfig;
  emailVerifyTtlMs: number;
  passwordResetTtlMs: number;
  /** This service's public address, the base of the default links. */
  publicUrl: string;
  /** Link templates; `{token}` is replaced by the token. */
  emailVerifyUrl: string;
  passwordResetUrl: string;
  /** The link that takes back a scheduled account deletion. */
  deletionCancelUrl: string;
}

export interface SmtpConfig {
  host: string;
  port: number;
  /** `smtps://`: TLS from the first byte. Otherwise STARTTLS when the server offers it. */
  secure: boolean;
  auth: { user: string; pass: string } | undefined;
  /** Bounds connecting, the greeting, and every wait for the server's reply. */
  timeoutMs: number;
}

export interface MailRetryConfig {
  /** Sends of one mail, the first included, before it is marked failed. */
  maxAttempts: number;
  /** Delay before the first retry; doubled for each further one. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** How often the background retrier looks for due mail. */
  intervalMs: number;
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A duration as `500ms`, `30s`, `60m`, `24h` or `7d` (a bare number is seconds). */
export function duration(env: Env, name: string, fallback: string, minMs: number, maxMs: number): number {
  const value = raw(env, name) ?? fallback;
  const match = /^(\d+)\s*(ms|s|m|h|d)?$/i.exec(value);
  const ms = match ? Number(match[1]) * (DURATION_UNITS[(match[2] ?? 's').toLowerCase()] ?? 0) : Number.NaN;
  if (!Number.isFinite(ms) || ms < minMs || ms > maxMs) {
    throw new ConfigError(
      name,
      `must be a duration such as 30s, 60m or 24h, from ${minMs}ms to ${maxMs / 1000}s (got "${value}")`,
    );
  }
  return ms;
}

function transport(env: Env): MailConfig['transport'] {
  const value = raw(env, 'MAIL_TRANSPORT')?.toLowerCase() ?? 'log';
  if (value !== 'log' && value !== 'smtp') {
    throw new ConfigError('MAIL_TRANSPORT', `must be log or smtp (got "${value}")`);
  }
  return value;
}

function smtp(env: Env): Omit<SmtpConfig, 'timeoutMs'> {
  const value = raw(env, 'SMTP_URL');
  // The URL may hold a password: name the variable, never echo it.
  if (value === undefined) throw new ConfigError('SMTP_URL', 'must be set when MAIL_TRANSPORT=smtp');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError('SMTP_URL', 'must be an smtp:// or smtps:// URL such as smtp://user:pass@host:587');
  }
  if ((url.protocol !== 'smtp:' && url.protocol !== 'smtps:') || url.hostname === '') {
    throw new ConfigError('SMTP_URL', 'must be an smtp:// or smtps:// URL such as smtp://user:pass@host:587');
  }
  const secure = url.protocol === 'smtps:';
  const auth =
    url.username === ''
      ? undefined
      : { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) };
  // URL keeps the brackets of an IPv6 host; the socket wants the bare address.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return { host, port: url.port === '' ? (secure ? 465 : 587) : Number(url.port), secure, auth };
}

/** A link template: an absolute URL (http(s) or an app's own scheme, for a deep link) containing `{token}`. */
export function linkTemplate(env: Env, name: string, fallback: string): string {
  const value = raw(env, name) ?? fallback;
  if (!value.includes('{token}') || !/^[a-z][a-z0-9+.-]*:\/\/\S+$/i.test(value)) {
    throw new ConfigError(name, `must be an absolute URL containing {token} (got "${value}")`);
  }
  return value;
}

function publicUrl(env: Env, port: number): string {
  // localhost, not 127.0.0.1: browsers make passkeys only for a domain name, never an IP address.
  const value = raw(env, 'PUBLIC_URL') ?? `http://localhost:${port}`;
  if (!/^https?:\/\/[^\s/]+(\/\S*)?$/i.test(value)) {
    throw new ConfigError('PUBLIC_URL', `must be an http:// or https:// URL (got "${value}")`);
  }
  return value.replace(/\/+$/, '');
}

export function parseMail(env: Env, port: number): MailConfig {
  const kind = transport(env);
  const timeoutMs = duration(env, 'SMTP_TIMEOUT', '10s', 100, 300_000);
  const base = publicUrl(env, port);
  const baseDelayMs = duration(env, 'MAIL_RETRY_BASE_DELAY', '30s', 1, 86_400_000);
  return {
    transport: kind,
    smtp: kind === 'smtp' ? { ...smtp(env), timeoutMs } : undefined,
    from: raw(env, 'MAIL_FROM') ?? 'Accounts <no-reply@localhost>',
    retry: {
      maxAttempts: integer(env, 'MAIL_RETRY_ATTEMPTS', 5, 1, 100),
      baseDelayMs,
      maxDelayMs: Math.max(baseDelayMs, duration(env, 'MAIL_RETRY_MAX_DELAY', '1h', 1, 7 * 86_400_000)),
      intervalMs: duration(env, 'MAIL_RETRY_INTERVAL', '30s', 100, 86_400_000),
    },
    emailVerifyTtlMs: duration(env, 'EMAIL_VERIFY_TTL', '24h', 60_000, 30 * 86_400_000),
    passwordResetTtlMs: duration(env, 'PASSWORD_RESET_TTL', '60m', 60_000, 86_400_000),
    publicUrl: base,
    emailVerifyUrl: linkTemplate(env, 'EMAIL_VERIFY_URL', `${base}/verify-email?token={token}`),
    passwordResetUrl: linkTemplate(env, 'PASSWORD_RESET_URL', `${base}/reset-password?token={token}`),
    deletionCancelUrl: linkTemplate(env, 'DELETION_CANCEL_URL', `${base}/cancel-deletion?token={token}`),
  };
}
