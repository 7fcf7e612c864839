/**
 * Age in full years (만 나이), as Korean law counts it: a person is a year older on the anniversary of their
 * birth date; one born on 29 February is a year older on 1 March of a common year (Civil Act art. 160: the
 * period ends on the last day of February). Dates are calendar dates, `YYYY-MM-DD`, in Korea's time zone.
 */

/** Under this age a child's personal data needs a legal guardian's consent (PIPA art. 22-2). */
export const GUARDIAN_CONSENT_AGE = 14;
/** The age of majority (Civil Act art. 4): a guardian must be at least this old. */
export const ADULT_AGE = 19;
/** The oldest birth date taken (at sign-up, from a verification): anything earlier is a slip, not a person. */
export const EARLIEST_BIRTH_DATE = '1900-01-01';

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
/** Korea has no daylight saving time: KST is UTC+9 all year. */
const KST_OFFSET_MS = 9 * 3_600_000;

interface CalendarDate {
  year: number;
  month: number;
  day: number;
}

/** The date if `value` is a real calendar date written `YYYY-MM-DD` (no 2026-02-30), else undefined. */
export function parseCalendarDate(value: string): CalendarDate | undefined {
  const match = ISO_DATE.exec(value);
  if (!match) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const probe = new Date(Date.UTC(year, month - 1, day));
  // Date.UTC treats years 0–99 as 1900–1999; setUTCFullYear keeps them as written.
  probe.setUTCFullYear(year);
  const real =
    probe.getUTCFullYear() === year && probe.getUTCMonth() === month - 1 && probe.getUTCDate() === day;
  return real ? { year, month, day } : undefined;
}

/** The calendar date in Korea at `instant`, `YYYY-MM-DD`. */
export function koreanDate(instant: Date): string {
  return new Date(instant.getTime() + KST_OFFSET_MS).toISOString().slice(0, 10);
}

/** Full years from `birthDate` to `onDate` (both `YYYY-MM-DD`). */
export function fullYears(birthDate: string, onDate: string): number {
  const birth = parseCalendarDate(birthDate);
  const on = parseCalendarDate(onDate);
  if (!birth || !on) throw new Error(`not a calendar date: ${birth ? onDate : birthDate}`);
  const beforeAnniversary = on.month < birth.month || (on.month === birth.month && on.day < birth.day);
  return on.year - birth.year - (beforeAnniversary ? 1 : 0);
}

/** Whether a person born on `birthDate` is under 14 on the Korean calendar day of `at`. */
export function needsGuardianConsent(birthDate: string, at: Date): boolean {
  return fullYears(birthDate, koreanDate(at)) < GUARDIAN_CONSENT_AGE;
}

/**
 * Whether a person born on `birthDate` is an adult (19 or over) on the Korean calendar day of `at`; null when
 * the birth date is unknown.
 */
export function isAdult(birthDate: string | null, at: Date): boolean | null {
  if (birthDate === null) return null;
  return fullYears(birthDate, koreanDate(at)) >= ADULT_AGE;
}

/** The instant the Korean calendar day of `date + years` begins (the 14th birthday's start, say). */
export function anniversaryStart(birthDate: string, years: number): Date {
  const birth = parseCalendarDate(birthDate);
  if (!birth) throw new Error(`not a calendar date: ${birthDate}`);
  const year = birth.year + years;
  // 29 February of a common year: the new age starts on 1 March.
  const leapDay = birth.month === 2 && birth.day === 29 && parseCalendarDate(`${year}-02-29`) === undefined;
  const [month, day] = leapDay ? [3, 1] : [birth.month, birth.day];
  const utc = new Date(0);
  utc.setUTCFullYear(year, month - 1, day);
  return new Date(utc.getTime() - KST_OFFSET_MS);
}
