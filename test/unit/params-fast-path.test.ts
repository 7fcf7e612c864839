import qs from 'qs';
import { describe, expect, it } from 'vitest';
import { parsePhpStyle, QS_OPTIONS } from '../../src/http/params.js';

/** A small deterministic generator (mulberry32): the same bodies on every run, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Pieces a hostile or careless client's form body is made of: escapes good and bad, brackets, prototype names. */
const PIECES = [
  'email',
  'a',
  'b',
  '=',
  '=',
  '&',
  '&',
  '+',
  '%',
  '%2',
  '%20',
  '%40',
  '%2B',
  '%26',
  '%3D',
  '%E',
  '%ED%95%9C',
  '%FF',
  '%5B',
  '%5d',
  '[',
  ']',
  '[]',
  '[0]',
  '.',
  '한',
  ' ',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'prototype',
  '0',
  '1',
];

function body(next: () => number): string {
  const length = Math.floor(next() * 12);
  let text = '';
  for (let i = 0; i < length; i++) text += PIECES[Math.floor(next() * PIECES.length)];
  return text;
}

describe('form bodies without brackets skip qs, with the same answer', () => {
  it('answers exactly what qs answers, on 50,000 generated bodies', () => {
    const next = random(20261123);
    let flat = 0;
    for (let i = 0; i < 50_000; i++) {
      const text = body(next);
      if (!/[[\]]|%5[bd]/i.test(text)) flat++;
      // toStrictEqual: same keys in the same order, the same values, and no prototype key set on the result.
      expect(parsePhpStyle(text), text).toStrictEqual(qs.parse(text, QS_OPTIONS));
      expect(Object.keys(parsePhpStyle(text)), text).toEqual(Object.keys(qs.parse(text, QS_OPTIONS)));
    }
    // Most generated bodies must take the fast path, or this test compares qs with itself.
    expect(flat).toBeGreaterThan(20_000);
  });

  it('keeps qs’s parameter limit', () => {
    const text = Array.from({ length: 1500 }, (_, i) => `k${i}=v`).join('&');
    expect(Object.keys(parsePhpStyle(text))).toHaveLength(QS_OPTIONS.parameterLimit as number);
    expect(parsePhpStyle(text)).toStrictEqual(qs.parse(text, QS_OPTIONS));
  });

  it('decodes what a form sends', () => {
    expect(parsePhpStyle('email=Seed-7%40Bench.example&name=%ED%95%9C+%EA%B8%80&x=%E0%A4%A')).toEqual({
      email: 'Seed-7@Bench.example',
      name: '한 글',
      x: '%E0%A4%A',
    });
  });
});
