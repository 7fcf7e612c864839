import { randomInt } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { drawRanks } from '../../src/modules/promotions/sampling.js';

describe('drawRanks', () => {
  it.each([
    [10, 3],
    [10, 8],
    [1_000, 20],
    [5, 5],
  ])('draws distinct ranks within 1..%i, %i at a time, until none are left', (size, count) => {
    const tried = new Set<number>();
    const seen: number[] = [];
    for (;;) {
      const drawn = drawRanks(size, count, tried, randomInt);
      if (drawn.length === 0) break;
      expect(drawn.length).toBeLessThanOrEqual(count);
      seen.push(...drawn);
    }
    expect(seen).toHaveLength(size);
    expect([...seen].sort((a, b) => a - b)).toEqual(Array.from({ length: size }, (_, i) => i + 1));
    expect(tried.size).toBe(size);
  });

  it('never draws a rank it drew before, nor one outside 1..size', () => {
    const tried = new Set([2, 4, 6]);
    const drawn = drawRanks(7, 10, tried, randomInt);
    expect([...drawn].sort()).toEqual([1, 3, 5, 7]);
    expect(drawRanks(0, 5, new Set(), randomInt)).toEqual([]);
  });

  it('makes every rank equally likely to come first, in the sparse and the dense mode', () => {
    for (const count of [2, 9]) {
      const counts = new Array<number>(10).fill(0);
      for (let run = 0; run < 5_000; run++) {
        const [first] = drawRanks(10, count, new Set(), randomInt);
        counts[(first as number) - 1] = (counts[(first as number) - 1] as number) + 1;
      }
      const chiSquare = counts.reduce((sum, n) => sum + (n - 500) ** 2 / 500, 0);
      // Upper 1e-6 quantile of chi-square with 9 degrees of freedom.
      expect(chiSquare).toBeLessThan(44.81);
    }
  });
});
