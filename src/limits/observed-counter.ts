import { TooManyRequestsError } from '../errors.js';
import type { RateCounter } from './rate-counter.js';

/** Told of every hit a limit refuses (metrics hook); `limit` is the limit's fixed name, never its key. */
export interface RateLimitObserver {
  rejected(limit: string): void;
}

/** The counter, reporting each refused hit to the observer. */
export function observedCounter(
  counter: RateCounter,
  limit: string,
  observer: RateLimitObserver,
): RateCounter {
  return {
    consume: async (key) => {
      try {
        await counter.consume(key);
      } catch (error) {
        if (error instanceof TooManyRequestsError) observer.rejected(limit);
        throw error;
      }
    },
    refund: (key) => counter.refund(key),
    reset: (key) => counter.reset(key),
  };
}
