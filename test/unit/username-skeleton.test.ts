import { describe, expect, it } from 'vitest';
import { usernameSkeleton } from '../../src/lib/username-skeleton.js';

describe('usernameSkeleton (UTS #39)', () => {
  it.each([
    ['paul', 'pauI'],
    ['rnrn', 'mm'],
    ['ol', '0l'],
    ['MM', 'rnrn'],
    ['paul', 'PAUL'],
    ['user1', 'userl'],
    // Cyrillic а and о in place of Latin a and o.
    ['paola', 'p\u0430\u043ela'],
  ])('gives %s and %s one skeleton', (a, b) => {
    expect(usernameSkeleton(a)).toBe(usernameSkeleton(b));
  });

  it.each([
    ['paul', 'paula'],
    ['abc', 'abd'],
    ['김민준', '김민수'],
  ])('tells %s and %s apart', (a, b) => {
    expect(usernameSkeleton(a)).not.toBe(usernameSkeleton(b));
  });

  it('gives a composed and a decomposed Korean name one skeleton', () => {
    expect(usernameSkeleton('한글')).toBe(usernameSkeleton('한글'.normalize('NFD')));
  });

  it.each([
    ['pauI', 'paul'],
    ['MM', 'rnrn'],
    // Decomposed, lower-cased: the ring above stays a combining mark.
    ['\u00c5', 'a\u030a'],
  ])('gives %s the skeleton %s', (username, skeleton) => {
    expect(usernameSkeleton(username)).toBe(skeleton);
  });
});
