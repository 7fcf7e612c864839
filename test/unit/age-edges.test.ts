import { describe, expect, it } from 'vitest';
import { anniversaryStart, fullYears, parseCalendarDate } from '../../src/lib/age.js';

describe('ages at the edges', () => {
  it('refuses a date with anything after it', () => {
    expect(parseCalendarDate('2012-04-01x')).toBeUndefined();
    expect(parseCalendarDate('2012-04-01T00:00:00Z')).toBeUndefined();
  });

  it('counts a birthday in a later month as not yet reached', () => {
    expect(fullYears('2012-11-27', '2026-10-30')).toBe(13);
    expect(fullYears('2012-11-27', '2026-12-01')).toBe(14);
  });

  it('names the date that is not one, on either side', () => {
    expect(() => fullYears('2012-02-30', '2026-01-01')).toThrow('not a calendar date: 2012-02-30');
    expect(() => fullYears('2012-01-01', '2026-02-30')).toThrow('not a calendar date: 2026-02-30');
    expect(() => anniversaryStart('2012-13-01', 14)).toThrow('not a calendar date: 2012-13-01');
  });
});
