import { type RateLimiterAbstract, RateLimiterMemory } from 'rate-limiter-flexible';
import { describe, expect, it } from 'vitest';
import { CircuitBreaker } from '../../src/limits/circuit-breaker.js';
import { LimiterCounter } from '../../src/limits/limiter-counter.js';

describe('CircuitBreaker', () => {
  it('opens on a failure for its cool-down, then lets one call try again', () => {
    let now = 1_000;
    const breaker = new CircuitBreaker(500, () => now);
    expect(breaker.isOpen).toBe(false);
    breaker.trip();
    expect(breaker.isOpen).toBe(true);
    now += 499;
    expect(breaker.isOpen).toBe(true);
    now += 1;
    expect(breaker.isOpen).toBe(false);
  });
});

/** A store that fails every call (a frozen Redis whose commands time out), counting the attempts. */
function failingStore(): { store: RateLimiterAbstract; attempts: () => number } {
  let attempts = 0;
  const fail = async () => {
    attempts++;
    throw new Error('Command timed out');
  };
  const store = { consume: fail, reward: fail, delete: fail } as unknown as RateLimiterAbstract;
  return { store, attempts: () => attempts };
}

describe('LimiterCounter with a failing store', () => {
  it('asks the store once per cool-down, counting in the fallback meanwhile', async () => {
    const { store, attempts } = failingStore();
    const breaker = new CircuitBreaker(60_000);
    const reports: unknown[] = [];
    const fallback = new RateLimiterMemory({ keyPrefix: 'breaker', points: 3, duration: 60 });
    const counters = [0, 1].map(
      () => new LimiterCounter(store, { limiter: fallback, report: (error) => reports.push(error), breaker }),
    );
    for (let i = 0; i < 3; i++) await counters[i % 2]?.consume('ip');
    await counters[0]?.reset('other');
    await counters[1]?.refund('other');
    // Every counter on the store shares the breaker: one attempt for all of them.
    expect(attempts()).toBe(1);
    expect(reports).toHaveLength(1);
    // The limit still holds, in the fallback.
    await expect(counters[0]?.consume('ip')).rejects.toMatchObject({ name: 'TooManyRequestsError' });
  });
});
