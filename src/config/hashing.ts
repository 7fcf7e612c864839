import { availableParallelism } from 'node:os';
import { type Env, integer } from './env.js';

/** The password hashing threads (src/lib/hashing-pool.ts): how many hash at once, how many wait, how long. */
export interface HashingConfig {
  workers: number;
  queueLimit: number;
  timeoutMs: number;
}

export function parseHashing(env: Env): HashingConfig {
  return {
    // One per core: argon2id with parallelism 1 keeps one core busy per call; more in flight only time-slice.
    workers: integer(env, 'HASH_WORKERS', availableParallelism(), 1, 64),
    // Past this many logins/registrations waiting, the next is shed with a 503 (about 0.5 s of queue on 2 cores).
    queueLimit: integer(env, 'HASH_QUEUE_LIMIT', 64, 0, 10_000),
    // Waiting included: no login waits longer than this for its hash.
    timeoutMs: integer(env, 'HASH_TIMEOUT_MS', 10_000, 100, 600_000),
  };
}
