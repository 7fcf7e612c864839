import { describe, expect, it } from 'vitest';
import { fullYears, isAdult, koreanDate } from '../../src/lib/age.js';
import { maskName } from '../../src/modules/identity/verifier.js';

describe('ages in full years (만 나이), Korean days', () => {
  it('counts a year on the birthday itself, not the day before', () => {
    expect(fullYears('2007-11-28', '2026-11-27')).toBe(18);
    expect(fullYears('2007-11-28', '2026-11-28')).toBe(19);
    expect(fullYears('2007-11-28', '2026-12-31')).toBe(19);
  });

  it('makes someone born on 29 February a year older on 1 March of a common year', () => {
    expect(fullYears('2008-02-29', '2027-02-28')).toBe(18);
    expect(fullYears('2008-02-29', '2027-03-01')).toBe(19);
    expect(fullYears('2008-02-29', '2028-02-29')).toBe(20);
  });

  it('takes the day in Korea: 15:00 UTC is already the next day there', () => {
    expect(koreanDate(new Date('2026-11-27T14:59:59Z'))).toBe('2026-11-27');
    expect(koreanDate(new Date('2026-11-27T15:00:00Z'))).toBe('2026-11-28');
  });

  it('is an adult at 19 in Korea, whatever the day in UTC, and unknown without a birth date', () => {
    expect(isAdult('2007-11-28', new Date('2026-11-27T14:59:59Z'))).toBe(false);
    expect(isAdult('2007-11-28', new Date('2026-11-27T15:00:00Z'))).toBe(true);
    expect(isAdult(null, new Date())).toBeNull();
  });
});

describe('maskName', () => {
  it.each([
    ['김민지', '김*지'],
    ['남궁민수', '남**수'],
    ['이서', '이*'],
    ['김', '*'],
    ['', '*'],
    ['John Smith', 'J********h'],
  ])('%s → %s', (name, masked) => {
    expect(maskName(name)).toBe(masked);
  });
});
