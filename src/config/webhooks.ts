import { boolean, ConfigError, type Env, integer, raw } from './env.js';
import { duration } from './mail.js';

/** The delivery of account events to webhook endpoints (docs/events.md). */
export interface WebhooksConfig {
  /** WEBHOOK_RETRY_SCHEDULE: the wait before each retry, in ms; after the last one a delivery is failed. */
  retryScheduleMs: number[];
  /** WEBHOOK_ALLOW_PRIVATE: allow http:// and private, loopback and link-local targets (development, tests). */
  allowPrivate: boolean;
  /** EVENT_RETENTION_DAYS: events none of whose deliveries is pending are purged after this many days. */
  eventRetentionDays: number;
  /**
   * WEBHOOK_POLL_INTERVAL: how often this instance looks for events to deliver (one indexed probe when there
   * are none); 0 = this instance delivers none (another one does).
   */
  pollIntervalMs: number;
  /**
   * WEBHOOK_TIMEOUT: how long one delivery attempt may take, resolution and connection included; past it the
   * attempt has failed. At most 30 s: an attempt must end well inside the claim's one-minute lease.
   */
  timeoutMs: number;
}

export const DEFAULT_RETRY_SCHEDULE = '5s,5m,30m,2h,5h,10h,10h';

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
/** A retry waits at most a week: a longer wait is a typo, and the event may be purged before it. */
const MAX_WAIT_MS = 7 * 86_400_000;

/** `5s,5m,30m` → [5000, 300000, 1800000]; one to 20 waits, each with its unit. */
export function parseRetrySchedule(value: string): number[] | undefined {
  const parts = value.split(',').map((part) => part.trim());
  if (parts.length === 0 || parts.length > 20) return undefined;
  const waits = parts.map((part) => {
    const match = /^(\d+)(ms|s|m|h|d)$/i.exec(part);
    return match ? Number(match[1]) * (UNITS[(match[2] ?? '').toLowerCase()] ?? 0) : Number.NaN;
  });
  return waits.every((ms) => Number.isFinite(ms) && ms > 0 && ms <= MAX_WAIT_MS) ? waits : undefined;
}

export function parseWebhooks(env: Env): WebhooksConfig {
  const schedule = raw(env, 'WEBHOOK_RETRY_SCHEDULE') ?? DEFAULT_RETRY_SCHEDULE;
  const retryScheduleMs = parseRetrySchedule(schedule);
  if (retryScheduleMs === undefined) {
    throw new ConfigError(
      'WEBHOOK_RETRY_SCHEDULE',
      `must be 1 to 20 comma-separated waits of up to 7d such as 5s,5m,30m,2h (got "${schedule}")`,
    );
  }
  return {
    retryScheduleMs,
    allowPrivate: boolean(env, 'WEBHOOK_ALLOW_PRIVATE', false),
    eventRetentionDays: integer(env, 'EVENT_RETENTION_DAYS', 30, 1, 36_500),
    pollIntervalMs: duration(env, 'WEBHOOK_POLL_INTERVAL', '1s', 0, 60_000),
    timeoutMs: duration(env, 'WEBHOOK_TIMEOUT', '10s', 100, 30_000),
  };
}
