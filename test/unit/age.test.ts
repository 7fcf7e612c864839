import { describe, expect, it } from 'vitest';
import {
  anniversaryStart,
  fullYears,
  isAdult,
  koreanDate,
  needsGuardianConsent,
  parseCalendarDate,
} from '../../src/lib/age.js';

describe('calendar dates', () => {
  it('accepts real dates written YYYY-MM-DD only', () => {
    expect(parseCalendarDate('2012-02-29')).toEqual({ year: 2012, month: 2, day: 29 });
    for (const bad of [
      '2013-02-29',
      '2012-13-01',
      '2012-00-10',
      '2012-04-31',
      '2012-4-1',
      '20120401',
      ' 2012-04-01',
    ]) {
      expect(parseCalendarDate(bad), bad).toBeUndefined();
    }
  });

  it('reads the day in Korea (UTC+9)', () => {
    expect(koreanDate(new Date('2026-11-26T14:59:59Z'))).toBe('2026-11-26');
    expect(koreanDate(new Date('2026-11-26T15:00:00Z'))).toBe('2026-11-27');
  });
});

describe('the 14th birthday', () => {
  it('is under 14 the day before and 14 on the birthday itself, in Korea', () => {
    expect(fullYears('2012-11-27', '2026-11-26')).toBe(13);
    expect(fullYears('2012-11-27', '2026-11-27')).toBe(14);
    // 23:59:59 KST on the day before, then midnight KST on the birthday.
    expect(needsGuardianConsent('2012-11-27', new Date('2026-11-26T14:59:59Z'))).toBe(true);
    expect(needsGuardianConsent('2012-11-27', new Date('2026-11-26T15:00:00Z'))).toBe(false);
  });

  it('makes one born on 29 February a year older on 1 March of a common year', () => {
    expect(fullYears('2012-02-29', '2026-02-28')).toBe(13);
    expect(fullYears('2012-02-29', '2026-03-01')).toBe(14);
    expect(fullYears('2012-02-29', '2024-02-29')).toBe(12);
    expect(anniversaryStart('2012-02-29', 14).toISOString()).toBe('2026-02-28T15:00:00.000Z');
    expect(anniversaryStart('2012-11-27', 14).toISOString()).toBe('2026-11-26T15:00:00.000Z');
  });

  it('counts an adult from the 19th birthday', () => {
    expect(isAdult('2007-11-28', new Date('2026-11-27T03:00:00Z'))).toBe(false);
    expect(isAdult('2007-11-27', new Date('2026-11-27T03:00:00Z'))).toBe(true);
  });
});
