/**
 * Ages in full years, as Korean law counts them (만 나이): a person is N on the day of their Nth birthday.
 * Days are Korean calendar days (KST, UTC+9, no daylight saving): the service's users are in Korea, and a
 * birthday begins at midnight there, not in UTC.
 */

/** Korean law's age of majority (민법 제4조): 19 in full years. */
export const AGE_OF_MAJORITY = 19;

const KST_OFFSET_MS = 9 * 3600 * 1000;

/** The Korean calendar day of `now`, `YYYY-MM-DD`. */
export function koreanDate(now: Date): string {
  return new Date(now.getTime() + KST_OFFSET_MS).toISOString().slice(0, 10);
}

/**
 * Full years from `birthDate` to `onDate` (both `YYYY-MM-DD`). Someone born on 29 February is a year older
 * on 1 March of a common year (the day after 28 February), as the Civil Code's counting gives.
 */
export function ageOn(birthDate: string, onDate: string): number {
  const [birthYear, birthMonthDay] = [Number(birthDate.slice(0, 4)), birthDate.slice(5)];
  const [year, monthDay] = [Number(onDate.slice(0, 4)), onDate.slice(5)];
  return year - birthYear - (monthDay < birthMonthDay ? 1 : 0);
}

/** Whether the person born on `birthDate` is an adult on the Korean day of `now`; null when unknown. */
export function isAdult(birthDate: string | null, now: Date): boolean | null {
  if (birthDate === null) return null;
  return ageOn(birthDate, koreanDate(now)) >= AGE_OF_MAJORITY;
}
