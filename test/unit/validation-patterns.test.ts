import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  codePointLength,
  EMAIL_PATTERN,
  SLUG_PATTERN,
  USERNAME_PATTERN,
} from '../../src/validation/patterns.js';

/** The seed's username alphabet, one character class at a time. */
const HANGUL_JAMO = fc.integer({ min: 0x3131, max: 0x314e }).map((c) => String.fromCodePoint(c));
const HANGUL_SYLLABLE = fc.integer({ min: 0xac00, max: 0xd7a3 }).map((c) => String.fromCodePoint(c));
const LATIN_OR_DIGIT = fc.constantFrom(
  ...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'.split(''),
);
const USERNAME_EDGE = fc.oneof(HANGUL_JAMO, HANGUL_SYLLABLE, LATIN_OR_DIGIT);
const USERNAME_INSIDE = fc.oneof(USERNAME_EDGE, fc.constantFrom('-', '_', '.'));

describe('USERNAME_PATTERN (the seed pattern with its PCRE meaning)', () => {
  it.each([
    'ab',
    'a1',
    'user.name',
    'user-name',
    'user_name',
    'a-_.b',
    '홍길동',
    'ㄱㄴ',
    '김a.b_c-d9',
    'A'.repeat(300),
  ])('accepts %j', (username) => {
    expect(USERNAME_PATTERN.test(username)).toBe(true);
  });

  it.each([
    ['a', 'one character: the first and last must be two characters'],
    ['', 'empty'],
    ['.ab', 'starts with a period'],
    ['-ab', 'starts with a hyphen'],
    ['ab_', 'ends with an underscore'],
    ['ab.', 'ends with a period'],
    ['a:b', 'a colon: in [0-9-_] the hyphen after a range is literal, not a range'],
    ['a/b', 'a slash: also inside 0-9..._ if the hyphen were read as a range'],
    ['a b', 'a space'],
    ['ab\n', 'a trailing newline ($ matches only at the very end; deliberate)'],
    ['a\nb', 'an inner newline'],
    ['a@b', 'an at sign'],
    ['é1', 'a Latin letter outside A-Z'],
    ['ㅏㅑ', 'Korean vowel jamo (U+314F on) are outside ㄱ-ㅎ'],
    ['\u1112\u1161\u11ab1', 'conjoining jamo (a decomposed syllable) before NFC'],
    ['ab😀', 'an emoji'],
  ])('refuses %j (%s)', (username) => {
    expect(USERNAME_PATTERN.test(username)).toBe(false);
  });

  it('accepts every string built from the allowed edge and inner characters', () => {
    fc.assert(
      fc.property(
        USERNAME_EDGE,
        fc.array(USERNAME_INSIDE, { maxLength: 20 }),
        USERNAME_EDGE,
        (a, inside, z) => {
          expect(USERNAME_PATTERN.test(`${a}${inside.join('')}${z}`)).toBe(true);
        },
      ),
    );
  });

  it('refuses every string holding a character outside the alphabet', () => {
    const allowed = /^[ㄱ-ㅎ가-힣A-Za-z0-9\-_.]$/u;
    const outsider = fc
      .string({ unit: 'grapheme', minLength: 1, maxLength: 1 })
      .filter((c) => !allowed.test(c));
    fc.assert(
      fc.property(
        fc.string({ maxLength: 5 }),
        outsider,
        fc.string({ maxLength: 5 }),
        (before, bad, after) => {
          expect(USERNAME_PATTERN.test(`ab${before}${bad}${after}yz`)).toBe(false);
        },
      ),
    );
  });
});

/**
 * The seed's username pattern as written, `^[X]+[Y]*[X]+$` (its hyphen escaped: PCRE reads `0-9-_` as a range
 * and a literal hyphen). It backtracks polynomially, so it only ever sees short strings here.
 */
const SEED_USERNAME_PATTERN = /^[ㄱ-ㅎ가-힣A-Za-z0-9]+[ㄱ-ㅎ가-힣A-Za-z0-9\-_.]*[ㄱ-ㅎ가-힣A-Za-z0-9]+$/;

/** Characters from inside and just outside the username alphabet, plus anything at all now and then. */
const USERNAME_ISH_CHARACTER = fc.oneof(
  { arbitrary: USERNAME_EDGE, weight: 6 },
  { arbitrary: fc.constantFrom('-', '_', '.'), weight: 3 },
  {
    // Neighbours of the ranges' ends and look-alikes: ㄰ (U+3130), ㅏ (U+314F), 가 - 1, 힣 + 1, conjoining
    // jamo, a full-width A, é, and separators the pattern must refuse.
    arbitrary: fc.constantFrom(
      '\u3130',
      '\u314f',
      '\uabff',
      '\ud7a4',
      '\u1100',
      '\u11a8',
      'Ａ',
      'é',
      ' ',
      '\n',
      ':',
      '/',
      '@',
      '😀',
    ),
    weight: 1,
  },
  { arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }), weight: 1 },
);
const USERNAME_ISH = fc.array(USERNAME_ISH_CHARACTER, { maxLength: 24 }).map((parts) => parts.join(''));

describe('USERNAME_PATTERN against the seed pattern it rewrites', () => {
  it('agrees with the seed pattern on every generated string', () => {
    fc.assert(
      fc.property(USERNAME_ISH, (candidate) => {
        expect(USERNAME_PATTERN.test(candidate)).toBe(SEED_USERNAME_PATTERN.test(candidate));
      }),
      { numRuns: 5000 },
    );
  });

  it('is tested on both sides: the generator yields accepted and refused usernames alike', () => {
    const verdicts = fc
      .sample(USERNAME_ISH, { numRuns: 2000, seed: 42 })
      .map((candidate) => SEED_USERNAME_PATTERN.test(candidate));
    expect(verdicts.filter(Boolean).length).toBeGreaterThan(200);
    expect(verdicts.filter((accepted) => !accepted).length).toBeGreaterThan(200);
  });

  it.each(['ab', 'a.b', '가-나', 'ㄱ_ㅎ', 'a..b', 'a', '.a', 'a.', '-', '', 'ab\n', 'a\u314fb'])(
    'agrees on %j',
    (candidate) => {
      expect(USERNAME_PATTERN.test(candidate)).toBe(SEED_USERNAME_PATTERN.test(candidate));
    },
  );
});

describe('SLUG_PATTERN', () => {
  it.each(['ab', 'abcd', 'my-slug', 'my_slug', 'a-_b', 'ABC123'])('accepts %j', (slug) => {
    expect(SLUG_PATTERN.test(slug)).toBe(true);
  });

  it.each(['a', '-abc', 'abc-', '_abc', 'abc_', 'a.b', 'a b', 'a:b', '슬러그', 'abc\n', 'ab/cd'])(
    'refuses %j',
    (slug) => {
      expect(SLUG_PATTERN.test(slug)).toBe(false);
    },
  );
});

describe('EMAIL_PATTERN (WHATWG valid e-mail address, with a dot in the domain)', () => {
  it.each([
    'a@b.co',
    'first.last@example.com',
    'user+tag@sub.example.co.kr',
    "o'hara@example.com",
    'a..b@example.com',
    'x@a-b.example',
    `${'l'.repeat(64)}@${'d'.repeat(63)}.com`,
  ])('accepts %j', (email) => {
    expect(EMAIL_PATTERN.test(email)).toBe(true);
  });

  it.each([
    ['user@localhost', 'no dot in the domain (deliberate)'],
    ['user', 'no at sign'],
    ['@example.com', 'no local part'],
    ['user@', 'no domain'],
    ['user@@example.com', 'two at signs'],
    ['us er@example.com', 'a space'],
    ['"quoted"@example.com', 'a quoted local part'],
    ['user@-example.com', 'a label starting with a hyphen'],
    ['user@example-.com', 'a label ending with a hyphen'],
    ['user@example..com', 'an empty label'],
    ['user@example.com.', 'a trailing dot'],
    [`user@${'d'.repeat(64)}.com`, 'a 64-character label'],
    ['사용자@example.com', 'a non-ASCII local part'],
    ['user@例え.jp', 'a non-ASCII domain'],
    ['user@example.com\n', 'a trailing newline'],
  ])('refuses %j (%s)', (email) => {
    expect(EMAIL_PATTERN.test(email)).toBe(false);
  });
});

describe('codePointLength', () => {
  it.each([
    ['', 0],
    ['abc', 3],
    ['홍길동', 3],
    ['😀', 1],
    ['a😀b', 3],
    ['\u1112\u1161\u11ab', 3],
  ])('counts %j as %d characters', (value, length) => {
    expect(codePointLength(value)).toBe(length);
  });

  it('agrees with the number of code points for any string', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (value) => {
        expect(codePointLength(value)).toBe([...value].length);
      }),
    );
  });
});
