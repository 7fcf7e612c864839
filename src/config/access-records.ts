import { ConfigError, type Env, integer, raw } from './env.js';

/** The access records' retention and the working hours their monthly review measures against. */
export interface AccessRecordsConfig {
  /** ACCESS_RECORD_RETENTION: records older than this many days are swept. */
  retentionDays: number;
  /** ACCESS_RECORD_SWEEP_INTERVAL_MINUTES: how often each instance sweeps (records are due by the day). */
  sweepIntervalMs: number;
  /** CONSOLE_WORKING_HOURS: access outside [start, end) minutes of the day, in `timeZone`, is reviewed. */
  workingHours: { start: number; end: number; text: string };
  /** CONSOLE_WORKING_DAYS: the ISO weekdays (1 Monday … 7 Sunday) of the working week; access on others is reviewed. */
  workingDays: { days: number[]; text: string };
  /** CONSOLE_TIME_ZONE: the IANA zone the working hours and the review's months are read in. */
  timeZone: string;
}

/**
 * The standards for securing personal information ask that access records be kept at least one year (two
 * above 50,000 data subjects, or for a handler of unique identifiers or sensitive data): so the default is
 * two years and less than one stops the start.
 */
export const MIN_RETENTION_DAYS = 365;
/** A year counts 366 days, so a year with a 29 February is never cut short. */
const DAYS_PER_YEAR = 366;
const RETENTION = /^(\d+)\s*(d|y)$/i;

function retentionDays(env: Env): number {
  const value = raw(env, 'ACCESS_RECORD_RETENTION') ?? '2y';
  const match = RETENTION.exec(value);
  if (!match) {
    throw new ConfigError('ACCESS_RECORD_RETENTION', `must be a period such as 2y or 730d (got "${value}")`);
  }
  const days = Number(match[1]) * ((match[2] ?? 'd').toLowerCase() === 'y' ? DAYS_PER_YEAR : 1);
  if (days < MIN_RETENTION_DAYS) {
    throw new ConfigError(
      'ACCESS_RECORD_RETENTION',
      `must be at least 1y (${MIN_RETENTION_DAYS}d): the law asks access records be kept a year (got "${value}")`,
    );
  }
  if (days > 36_500)
    throw new ConfigError('ACCESS_RECORD_RETENTION', `must be at most 100y (got "${value}")`);
  return days;
}

const HOURS = /^([01]\d|2[0-3]):([0-5]\d)-([01]\d|2[0-4]):([0-5]\d)$/;

function workingHours(env: Env): AccessRecordsConfig['workingHours'] {
  const text = raw(env, 'CONSOLE_WORKING_HOURS') ?? '09:00-19:00';
  const match = HOURS.exec(text);
  const [start, end] = match
    ? [Number(match[1]) * 60 + Number(match[2]), Number(match[3]) * 60 + Number(match[4])]
    : [0, 0];
  if (!match || end <= start || end > 24 * 60) {
    throw new ConfigError(
      'CONSOLE_WORKING_HOURS',
      `must be a span of the day such as 09:00-19:00 (got "${text}")`,
    );
  }
  return { start, end, text };
}

const DAY_NAMES = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;

/** `mon-fri`, `sun-thu` (a span may run over Sunday), `mon,wed,fri` or `mon-thu,sat`: ISO weekdays, in order. */
export function parseWorkingDays(text: string): number[] | undefined {
  const days = new Set<number>();
  for (const part of text.toLowerCase().split(',')) {
    const ends = part.trim().split('-');
    const [first, last] = ends.map((name) => DAY_NAMES.indexOf(name.trim() as (typeof DAY_NAMES)[number]));
    if (ends.length > 2 || first === undefined || first < 0 || (last !== undefined && last < 0)) {
      return undefined;
    }
    const span = last === undefined ? 0 : (last - first + 7) % 7;
    for (let step = 0; step <= span; step++) days.add(((first + step) % 7) + 1);
  }
  return [...days].sort((a, b) => a - b);
}

function workingDays(env: Env): AccessRecordsConfig['workingDays'] {
  const text = raw(env, 'CONSOLE_WORKING_DAYS') ?? 'mon-fri';
  const days = parseWorkingDays(text);
  if (days === undefined) {
    throw new ConfigError(
      'CONSOLE_WORKING_DAYS',
      `must be days such as mon-fri or mon,wed,fri (got "${text}")`,
    );
  }
  return { days, text };
}

function timeZone(env: Env): string {
  const zone = raw(env, 'CONSOLE_TIME_ZONE') ?? 'Asia/Seoul';
  try {
    // Throws a RangeError for a zone the runtime does not know; the name it knows is the canonical one.
    return new Intl.DateTimeFormat('en', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    throw new ConfigError(
      'CONSOLE_TIME_ZONE',
      `must be an IANA time zone such as Asia/Seoul (got "${zone}")`,
    );
  }
}

export function parseAccessRecords(env: Env): AccessRecordsConfig {
  return {
    retentionDays: retentionDays(env),
    sweepIntervalMs: integer(env, 'ACCESS_RECORD_SWEEP_INTERVAL_MINUTES', 60, 1, 1440) * 60_000,
    workingHours: workingHours(env),
    workingDays: workingDays(env),
    timeZone: timeZone(env),
  };
}
