import { describe, expect, it } from 'vitest';
import { alternated, alternationLine, median, medianOf, spreadPercent } from '../../bench/alternation.js';
import type { LoadResult } from '../../bench/load.js';

/** A window that records when it ran and answers with the given req/s (and CPU, p50, p99 derived from it). */
function windows(order: string[], name: string, perSecond: number[]): () => Promise<LoadResult> {
  let index = 0;
  return async () => {
    const requestsPerSecond = perSecond[index++] ?? Number.NaN;
    order.push(name);
    return { requestsPerSecond, p50: requestsPerSecond / 100, p99: 1, failures: 0, cpuMsPerRequest: 0.1 };
  };
}

describe('bench alternation (the order every hot-path ratio rests on)', () => {
  it('runs the limit first and last, each round every service load in turn, and takes each side’s median', async () => {
    const order: string[] = [];
    const result = await alternated(
      windows(order, 'L', [100, 110, 40, 120, 130, 125]),
      [windows(order, 'V', [80, 90, 100, 20, 95]), windows(order, 'U', [50, 60, 70, 65, 55])],
      5,
    );
    expect(order.join(' ')).toBe('L V U L V U L V U L V U L V U L');
    // The spoiled windows (40 of the limit, 20 of validate) do not drag their side down.
    expect(result.limit.requestsPerSecond).toBe(115);
    expect(result.limit.windowsPerSecond).toEqual([100, 110, 40, 120, 130, 125]);
    expect(result.services.map((service) => service.requestsPerSecond)).toEqual([90, 60]);
    expect(result.services[1]?.windowsPerSecond).toEqual([50, 60, 70, 65, 55]);
  });

  it('with one service load is the hashing scenarios’ L S L S L', async () => {
    const order: string[] = [];
    await alternated(windows(order, 'L', [1, 2, 3]), [windows(order, 'S', [1, 2])], 2);
    expect(order.join(' ')).toBe('L S L S L');
  });

  it('adds failures up, so one spoiled window spoils the side', () => {
    const ok = { requestsPerSecond: 10, p50: 1, p99: 2, failures: 0 };
    const result = medianOf([ok, { ...ok, failures: 3 }]);
    expect(result.failures).toBe(3);
    // CPU per request is given only when every window measured it.
    expect(result.cpuMsPerRequest).toBeUndefined();
  });

  it('takes the middle window, or the mean of the two middle ones, whatever the order', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([7])).toBe(7);
    expect(median([])).toBeNaN();
  });

  it('gives the spread as highest minus lowest over the median, in %', () => {
    expect(spreadPercent([90, 100, 110])).toBeCloseTo(20);
    expect(spreadPercent([100, 100, 100, 100, 100])).toBe(0);
    expect(spreadPercent([])).toBeNaN();
  });

  it('prints both sides’ windows in the order they ran', async () => {
    const result = await alternated(windows([], 'L', [9000, 9400]), [windows([], 'S', [7600])], 1);
    const [service] = result.services;
    if (service === undefined) throw new Error('no service result');
    expect(alternationLine('validate', result.limit, service, 5)).toBe(
      'validate, alternated 5 s windows, req/s: limit 9000 9400 (median 9200, spread 4 %), ' +
        'service 7600 (median 7600, spread 0 %)',
    );
  });
});
