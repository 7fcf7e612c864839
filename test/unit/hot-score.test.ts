import { describe, expect, it } from 'vitest';
import { HOT_DECAY_SECONDS, hotScore, overtakeSeconds } from '../../src/modules/posts/hot-score.js';

const T = new Date('2026-01-01T00:00:00Z');
const later = (seconds: number) => new Date(T.getTime() + seconds * 1000);

describe('hot score', () => {
  it('counts no like and one like alike, then log10 of the likes', () => {
    expect(hotScore(0, T)).toBe(hotScore(1, T));
    expect(hotScore(10, T) - hotScore(1, T)).toBeCloseTo(1, 12);
    expect(hotScore(100, T) - hotScore(10, T)).toBeCloseTo(1, 12);
  });

  it('gives 12.5 hours of youth the weight of ten times the likes', () => {
    expect(HOT_DECAY_SECONDS).toBe(12.5 * 3600);
    expect(hotScore(1, later(HOT_DECAY_SECONDS)) - hotScore(10, T)).toBeCloseTo(0, 9);
  });

  it('puts the overtaking point where the scores cross', () => {
    for (const [oldLikes, newLikes] of [
      [100, 1],
      [1000, 10],
      [50, 3],
    ] as const) {
      const point = overtakeSeconds(oldLikes, newLikes);
      expect(hotScore(newLikes, later(point - 60))).toBeLessThan(hotScore(oldLikes, T));
      expect(hotScore(newLikes, later(point + 60))).toBeGreaterThan(hotScore(oldLikes, T));
    }
    expect(overtakeSeconds(100, 1)).toBeCloseTo(25 * 3600, 6);
    expect(overtakeSeconds(1, 100)).toBeLessThan(0);
  });

  it('never changes with the clock: only likes and the creation time move it', () => {
    expect(hotScore(42, T)).toBe(hotScore(42, new Date(T.getTime())));
  });
});
