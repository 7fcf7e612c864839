import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { slugStem } from '../../src/account/sign-up/slugs.js';
import { EMAIL_PATTERN, SLUG_PATTERN } from '../../src/validation/patterns.js';

describe('slugStem', () => {
  it.each([
    ['kim.minjun@example.com', 'kim-minjun'],
    ['Kim.MinJun@example.com', 'kim-minjun'],
    ['first+tag@example.com', 'first-tag'],
    ['a__b..c--d@example.com', 'a-b-c-d'],
    ['__lead-trail__@example.com', 'lead-trail'],
    ["o'hara.jones@example.com", 'o-hara-jones'],
    ['under_score@example.com', 'under_score'],
    ['2024user@example.com', '2024user'],
    [`${'a'.repeat(39)}.bcdef@example.com`, 'a'.repeat(39)],
    [`${'x'.repeat(60)}@example.com`, 'x'.repeat(40)],
  ])('derives %s → %s', (email, stem) => {
    expect(slugStem(email)).toBe(stem);
  });

  it.each(['abc@example.com', 'a.b@example.com', '...@example.com', '!#$%@example.com', '@example.com', ''])(
    'gives up on %j (fewer than four characters survive)',
    (email) => {
      expect(slugStem(email)).toBeUndefined();
    },
  );

  it('always yields a valid slug of 4 to 40 characters, or nothing, for any valid email', () => {
    const local = fc.stringMatching(/^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}$/);
    const email = local.map((part) => `${part}@example.com`).filter((value) => EMAIL_PATTERN.test(value));
    fc.assert(
      fc.property(email, (value) => {
        const stem = slugStem(value);
        if (stem === undefined) return;
        expect(stem).toMatch(SLUG_PATTERN);
        expect(stem.length).toBeGreaterThanOrEqual(4);
        expect(stem.length).toBeLessThanOrEqual(40);
        expect(stem).toBe(stem.toLowerCase());
        // The suffixed retries stay valid slugs too.
        expect(`${stem}-a1b2`).toMatch(SLUG_PATTERN);
      }),
      { numRuns: 500 },
    );
  });
});
