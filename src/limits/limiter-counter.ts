import { type RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import type { CircuitBreaker } from './circuit-breaker.js';
import { type RateCounter, tooManyRequests } from './rate-counter.js';

/** Where the counts go when the shared store fails, and how that is reported. */
export interface Fallback {
  limiter: RateLimiterAbstract;
  report(error: unknown): void;
  /** Shared by every counter on the store: one failure sends them all to the fallback for a while. */
  breaker: CircuitBreaker;
}

/**
 * A RateCounter on a rate-limiter-flexible limiter. With a fallback (the Redis store has one), a store that
 * errors or times out does not fail the request: the hit is counted in this process instead (the limit then
 * holds per instance until Redis is back) and the failure is reported. A 500 for every login because Redis
 * blinked would be an outage of its own; no limit at all would open the door the limits are there to close.
 * After a failure the breaker sends every hit to the fallback for a while, so a frozen store costs one
 * command timeout per cool-down rather than one per check.
 */
export class LimiterCounter implements RateCounter {
  constructor(
    private readonly store: RateLimiterAbstract,
    private readonly fallback?: Fallback,
  ) {}

  async consume(key: string): Promise<void> {
    try {
      await this.run((limiter) => limiter.consume(key));
    } catch (error) {
      // The library rejects with its result object (not an Error) when the key is over the limit.
      if (error instanceof RateLimiterRes) throw tooManyRequests(error.msBeforeNext);
      throw error;
    }
  }

  async refund(key: string): Promise<void> {
    await this.run((limiter) => limiter.reward(key, 1));
  }

  async reset(key: string): Promise<void> {
    await this.run((limiter) => limiter.delete(key));
  }

  private async run<T>(operation: (limiter: RateLimiterAbstract) => Promise<T>): Promise<T> {
    const fallback = this.fallback;
    if (fallback?.breaker.isOpen) return operation(fallback.limiter);
    try {
      return await operation(this.store);
    } catch (error) {
      if (error instanceof RateLimiterRes || !fallback) throw error;
      fallback.breaker.trip();
      fallback.report(error);
      return operation(fallback.limiter);
    }
  }
}
