/**
 * The arithmetic of an open-model load, kept apart from any socket so it can be tested on its own: when each
 * request is due, how its latency is counted, percentiles, the weighted choice of what it asks for, the
 * search for the highest rate a target holds at, and the skewed like counts of the seeded posts.
 */

/**
 * When request `index` is due, in ms after the start, at a fixed `rate` per second: the schedule does not
 * wait for answers (an open model: users arrive whether or not the last one was served).
 */
export function dueAt(index: number, rate: number): number {
  return (index * 1000) / rate;
}

/** How many requests `seconds` at `rate` per second hold. */
export function requestCount(rate: number, seconds: number): number {
  return Math.max(1, Math.round(rate * seconds));
}

/**
 * A request's latency corrected for coordinated omission: from when it was due, not from when it was sent.
 * A generator that falls behind (its own event loop busy, its sockets full) would otherwise send late and
 * time only the answer, hiding exactly the queueing a stalled server causes.
 */
export function correctedLatency(startMs: number, index: number, rate: number, answeredMs: number): number {
  return answeredMs - (startMs + dueAt(index, rate));
}

/** The nearest-rank percentile of sorted values (p in 0–100): a value that was observed, never interpolated. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] as number;
}

export interface LatencySummary {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

export function summarize(latencies: readonly number[]): LatencySummary {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    count: sorted.length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted.length === 0 ? Number.NaN : (sorted[sorted.length - 1] as number),
  };
}

/** A small deterministic generator (mulberry32): the same seed gives the same mix on every run. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Picks a key with probability proportional to its weight, given a uniform draw in [0, 1). */
export function weightedPick<K extends string>(weights: Readonly<Record<K, number>>, draw: number): K {
  const entries = Object.entries(weights) as Array<[K, number]>;
  const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
  let left = draw * total;
  for (const [key, weight] of entries) {
    if (left < weight) return key;
    left -= weight;
  }
  const last = entries[entries.length - 1];
  if (last === undefined) throw new Error('no weights to pick from');
  return last[0];
}

export interface RateTrial {
  rate: number;
  pass: boolean;
}

export interface RateSearchOptions {
  /** The first rate tried. */
  start: number;
  /** Each step up multiplies the rate by this until a trial fails. */
  factor: number;
  /** Bisect until the failing rate is within this fraction above the passing one (0.1 = 10 %). */
  precision: number;
  /** Never try above this rate; never more than this many trials in all. */
  maxRate: number;
  maxTrials: number;
}

export interface RateSearchResult {
  /** The highest rate that passed (0 when even the first failed). */
  best: number;
  trials: RateTrial[];
}

/**
 * Step up, then bisect: `trial(rate)` is run at `start`, `start × factor`, … until one fails (or `maxRate`
 * passes), then between the last pass and the first failure until they are within `precision` of each
 * other. When the first trial fails, the search goes down by the same factor until one passes.
 */
export async function searchRate(
  trial: (rate: number) => Promise<boolean>,
  options: RateSearchOptions,
): Promise<RateSearchResult> {
  const trials: RateTrial[] = [];
  const run = async (rate: number) => {
    const pass = await trial(rate);
    trials.push({ rate, pass });
    return pass;
  };
  let passed = 0;
  let failed = Number.POSITIVE_INFINITY;
  let rate = Math.min(options.start, options.maxRate);
  if (await run(rate)) {
    passed = rate;
    while (trials.length < options.maxTrials && rate < options.maxRate) {
      rate = Math.min(options.maxRate, Math.round(rate * options.factor));
      if (!(await run(rate))) {
        failed = rate;
        break;
      }
      passed = rate;
    }
  } else {
    failed = rate;
    while (trials.length < options.maxTrials && rate > 1) {
      rate = Math.max(1, Math.floor(rate / options.factor));
      if (await run(rate)) {
        passed = rate;
        break;
      }
      failed = rate;
    }
  }
  while (
    trials.length < options.maxTrials &&
    Number.isFinite(failed) &&
    passed > 0 &&
    failed - passed > passed * options.precision
  ) {
    const middle = Math.round((passed + failed) / 2);
    if (middle === passed || middle === failed) break;
    if (await run(middle)) passed = middle;
    else failed = middle;
  }
  return { best: passed, trials };
}

/**
 * Likes per post for one period of `period` posts: a heavy tail (most posts get a few, some hundreds, as a
 * feed's likes are), scaled so the period sums to exactly `mean × period`. A post's count is this pattern at
 * a scrambled position, so the seed's total is exact whenever the post count is a multiple of the period.
 */
export function likeCountPattern(mean: number, period = 1000, exponent = 0.7): number[] {
  const target = Math.round(mean * period);
  const shape = Array.from({ length: period }, (_, i) => ((i + 0.5) / period) ** -exponent);
  const counts = (scale: number) => shape.map((value) => Math.floor(scale * value));
  const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
  let low = 0;
  let high = target + 1;
  for (let step = 0; step < 60; step++) {
    const middle = (low + high) / 2;
    if (sum(counts(middle)) <= target) low = middle;
    else high = middle;
  }
  const pattern = counts(low);
  // Floors leave a few likes short of the target: one more each to the posts with the largest fractions.
  const order = shape
    .map((value, i) => ({ i, fraction: low * value - Math.floor(low * value) }))
    .sort((a, b) => b.fraction - a.fraction);
  for (let missing = target - sum(pattern), k = 0; missing > 0; missing--, k++) {
    const slot = order[k % period]?.i ?? 0;
    pattern[slot] = (pattern[slot] ?? 0) + 1;
  }
  return pattern;
}
