import { describe, expect, it } from 'vitest';
import { alternated, alternationLine, meanOf } from '../../bench/alternation.js';
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
  it('runs the limit first and last, each round every service load in turn, and averages each side', async () => {
    const order: string[] = [];
    const result = await alternated(
      windows(order, 'L', [100, 110, 120, 130]),
      [windows(order, 'V', [80, 90, 100]), windows(order, 'U', [50, 60, 70])],
      3,
    );
    expect(order.join(' ')).toBe('L V U L V U L V U L');
    expect(result.limit.requestsPerSecond).toBe(115);
    expect(result.limit.windowsPerSecond).toEqual([100, 110, 120, 130]);
    expect(result.services.map((service) => service.requestsPerSecond)).toEqual([90, 60]);
    expect(result.services[1]?.windowsPerSecond).toEqual([50, 60, 70]);
  });

  it('with one service load is the hashing scenarios’ L S L S L', async () => {
    const order: string[] = [];
    await alternated(windows(order, 'L', [1, 2, 3]), [windows(order, 'S', [1, 2])], 2);
    expect(order.join(' ')).toBe('L S L S L');
  });

  it('adds failures up, so one spoiled window spoils the side', () => {
    const ok = { requestsPerSecond: 10, p50: 1, p99: 2, failures: 0 };
    const mean = meanOf([ok, { ...ok, failures: 3 }]);
    expect(mean.failures).toBe(3);
    // CPU per request is averaged only when every window measured it.
    expect(mean.cpuMsPerRequest).toBeUndefined();
  });

  it('prints both sides’ windows in the order they ran', async () => {
    const result = await alternated(windows([], 'L', [9000, 9400]), [windows([], 'S', [7600])], 1);
    const [service] = result.services;
    if (service === undefined) throw new Error('no service result');
    expect(alternationLine('validate', result.limit, service, 5)).toBe(
      'validate, alternated 5 s windows, req/s: limit 9000 9400, service 7600',
    );
  });
});
