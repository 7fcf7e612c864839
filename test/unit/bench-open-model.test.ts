import { describe, expect, it } from 'vitest';
import { type OpenResult, summaryExcept } from '../../bench/open-load.js';
import {
  correctedLatency,
  dueAt,
  likeCountPattern,
  percentile,
  requestCount,
  searchRate,
  seededRandom,
  summarize,
  weightedPick,
} from '../../bench/open-model.js';

describe('bench open model: schedule and coordinated-omission correction', () => {
  it('spaces requests evenly at the rate, whatever is still unanswered', () => {
    expect([0, 1, 2, 100].map((index) => dueAt(index, 200))).toEqual([0, 5, 10, 500]);
    expect(requestCount(200, 3)).toBe(600);
    expect(requestCount(0.1, 1)).toBe(1);
  });

  it('times each request from when it was due, so a stall counts for every request queued behind it', () => {
    // 100/s from t = 1000 ms: request 5 is due at 1050. The server stalls until 1300 and then answers
    // everything at once: each request carries the wait since its own due time, not 1 ms of "service".
    expect(correctedLatency(1000, 5, 100, 1300)).toBe(250);
    const latencies = Array.from({ length: 30 }, (_, index) => correctedLatency(1000, index, 100, 1301));
    expect(latencies[0]).toBe(301);
    expect(latencies[29]).toBe(11);
    expect(summarize(latencies).p50).toBeGreaterThan(100);
  });
});

describe('bench open model: percentiles', () => {
  it('takes the nearest rank, a value that was observed', () => {
    const sorted = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(sorted, 50)).toBe(50);
    expect(percentile(sorted, 99)).toBe(99);
    expect(percentile(sorted, 100)).toBe(100);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([1, 2, 3], 0)).toBe(1);
    expect(percentile([], 50)).toBeNaN();
  });

  it('lets one slow request in a hundred set the p99 but not the p50', () => {
    const latencies = [...Array.from({ length: 98 }, () => 2), 250, 300];
    const summary = summarize(latencies.reverse());
    expect(summary).toEqual({ count: 100, p50: 2, p99: 250, max: 300 });
  });
});

describe('bench open model: the mix', () => {
  it('draws each kind in proportion to its weight', () => {
    const weights = { feed: 45, validate: 20, login: 5, rest: 30 };
    const random = seededRandom(42);
    const counts: Record<string, number> = { feed: 0, validate: 0, login: 0, rest: 0 };
    for (let i = 0; i < 100_000; i++) {
      const kind = weightedPick(weights, random());
      counts[kind] = (counts[kind] ?? 0) + 1;
    }
    expect((counts.feed ?? 0) / 1000).toBeCloseTo(45, 0);
    expect((counts.validate ?? 0) / 1000).toBeCloseTo(20, 0);
    expect((counts.login ?? 0) / 1000).toBeCloseTo(5, 0);
    expect(weightedPick(weights, 0)).toBe('feed');
    expect(weightedPick(weights, 0.999_999)).toBe('rest');
  });

  it('repeats the same sequence for the same seed', () => {
    const a = seededRandom(7);
    const b = seededRandom(7);
    const c = seededRandom(8);
    const first = [a(), a(), a()];
    expect([b(), b(), b()]).toEqual(first);
    expect([c(), c(), c()]).not.toEqual(first);
  });

  it('spreads likes with a heavy tail that sums exactly to the mean', () => {
    const pattern = likeCountPattern(5);
    expect(pattern).toHaveLength(1000);
    expect(pattern.reduce((sum, value) => sum + value, 0)).toBe(5000);
    expect(Math.max(...pattern)).toBeGreaterThan(100);
    expect(pattern.filter((count) => count <= 5).length).toBeGreaterThan(600);
    expect(Math.min(...pattern)).toBeGreaterThanOrEqual(0);
  });
});

/** A fake service whose target holds up to `capacity` requests a second. */
function capacity(limit: number) {
  const tried: number[] = [];
  const trial = async (rate: number) => {
    tried.push(rate);
    return rate <= limit;
  };
  return { tried, trial };
}

describe('bench open model: the rate search', () => {
  const options = { start: 50, factor: 2, precision: 0.1, maxRate: 100_000, maxTrials: 20 };

  it('steps up until a trial fails, then bisects to within the precision', async () => {
    const fake = capacity(330);
    const result = await searchRate(fake.trial, options);
    expect(fake.tried.slice(0, 4)).toEqual([50, 100, 200, 400]);
    expect(fake.tried[4]).toBe(300);
    expect(result.best).toBeLessThanOrEqual(330);
    expect(result.best).toBeGreaterThan(330 / 1.1);
    expect(result.trials.every((trial) => trial.pass === trial.rate <= 330)).toBe(true);
  });

  it('steps down when the first rate already fails', async () => {
    const fake = capacity(20);
    const result = await searchRate(fake.trial, options);
    expect(fake.tried.slice(0, 3)).toEqual([50, 25, 12]);
    expect(result.best).toBeLessThanOrEqual(20);
    expect(result.best).toBeGreaterThan(20 / 1.1);
  });

  it('stops at the trial budget and reports the best pass so far', async () => {
    const fake = capacity(10_000);
    const result = await searchRate(fake.trial, { ...options, maxTrials: 3 });
    expect(fake.tried).toEqual([50, 100, 200]);
    expect(result.best).toBe(200);
  });

  it('reports 0 when no rate passes', async () => {
    const result = await searchRate(async () => false, { ...options, start: 4, maxTrials: 10 });
    expect(result.best).toBe(0);
    expect(result.trials.map((trial) => trial.rate)).toEqual([4, 2, 1]);
  });
});

describe('bench open model: the tail the rate search judges', () => {
  const latencies = {
    feed: Array.from({ length: 98 }, (_, i) => 5 + i / 10),
    'post/create': [130, 140],
  };
  const result: OpenResult = {
    rate: 10,
    seconds: 10,
    answeredPerSecond: 10,
    all: { ...summarize([...latencies.feed, ...latencies['post/create']]), failures: 1 },
    byKind: {
      feed: { ...summarize(latencies.feed), failures: 0 },
      'post/create': { ...summarize(latencies['post/create']), failures: 1 },
    },
    latencies,
    failureSamples: ['post/create 503'],
  };

  it('takes the p99 over the kinds not excluded, and counts only their failures', () => {
    expect(result.all.p99).toBe(130);
    const judged = summaryExcept(result, new Set(['post/create']));
    expect(judged).toMatchObject({ count: 98, p99: 14.7, max: 14.7, failures: 0 });
  });

  it('is the whole result when nothing is excluded', () => {
    expect(summaryExcept(result, new Set())).toEqual(result.all);
  });
});
