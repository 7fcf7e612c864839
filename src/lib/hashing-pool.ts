import { fileURLToPath } from 'node:url';
import { OverloadedError, ServiceUnavailableError } from '../errors.js';
import { ChildPool } from './child-pool.js';
import { startThread } from './pool-children.js';
import { noTracing, type Tracing } from './tracing.js';

/**
 * The worker thread's script. This module runs from src/lib (tests) and dist/lib (the built service); both are two
 * levels below the package root, so one relative path finds the script from either.
 */
const WORKER_SCRIPT = fileURLToPath(new URL('../../src/lib/hashing-worker.cjs', import.meta.url));

export interface HashingPoolOptions {
  /** Worker threads hashing at once, one hash each (HASH_WORKERS; default one per core). */
  workers: number;
  /** Calls waiting for a free thread; one more is shed at once with a 503 (HASH_QUEUE_LIMIT). */
  queueLimit: number;
  /** A call not answered within this long (waiting included) fails with a 503; its thread is terminated. */
  timeoutMs: number;
  /** How a hashing thread is started: `startThread` (a test wraps it to reach the threads it starts). */
  startThread?: typeof startThread;
  /** A `password hash` / `password verify` span per call, the wait for a thread included (lib/tracing.ts). */
  tracing?: Tracing | undefined;
}

export interface HashCost {
  memoryKib: number;
  timeCost: number;
  parallelism: number;
}

/** A call as hashing-worker.cjs reads it (the pool adds its id). */
type HashingJob =
  | { op: 'hash'; password: string; cost: HashCost }
  | { op: 'verify'; password: string; storedHash: string };

interface HashingReply {
  id: number;
  ok: boolean;
  result?: string | boolean;
  message?: string;
}

/**
 * Calls a thread holds at once: the one it hashes and the next, handed over before the first is done. The
 * thread, which hashes synchronously (hashing-worker.cjs), starts the next hash the moment it has posted the
 * last reply, instead of idling for that reply to reach the event loop and the next call to come back
 * (measured with processes: 2.5–4.5 % of both cores idle under a login flood without it). Still one hash at
 * a time per thread. bench/hot-paths.ts keeps a copy (SERVICE_CALLS_PER_HASHING_PROCESS) for its raw argon2
 * information rows.
 */
const CALLS_PER_CHILD = 2;

/** A reply carries the hash or the verdict; a failed call names only the error (never what was hashed). */
function answer(reply: HashingReply): string | boolean {
  if (reply.ok && reply.result !== undefined) return reply.result;
  throw new Error(`password hashing failed: ${reply.message ?? 'unknown error'}`);
}

/**
 * A bounded pool of argon2 worker threads at a lower CPU priority than the API (hashing-worker.cjs): at most
 * `workers` hashes at once, at most `queueLimit` waiting (load shedding: the next gets a 503 with a
 * Retry-After at once, an OverloadedError, instead of a queue that grows until every request times out),
 * each call bounded in time from the moment it is made. A waiting call may be handed to a busy child in
 * advance (CALLS_PER_CHILD); it still counts as waiting. Threads, not processes: the same isolation of the
 * CPU (each thread lowers its own priority) without a Node runtime per hasher in memory. A thread that dies
 * fails the call it held with a 503 and is replaced.
 */
export class HashingPool {
  private readonly pool: ChildPool<HashingJob, string | boolean, HashingReply>;
  private readonly tracing: Tracing;

  constructor(options: HashingPoolOptions) {
    this.tracing = options.tracing ?? noTracing;
    const start = options.startThread ?? startThread;
    this.pool = new ChildPool({
      // Nothing of ours in the thread's process.env (no DATABASE_URL, no secrets): it only hashes.
      start: () =>
        start(WORKER_SCRIPT, {
          env: {},
          resourceLimits: { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 16 },
        }),
      workers: options.workers,
      queueLimit: options.queueLimit,
      timeoutMs: options.timeoutMs,
      timeoutFrom: 'call',
      callsPerChild: CALLS_PER_CHILD,
      answer,
      errors: {
        closed: () => new ServiceUnavailableError(new Error('hashing pool closed')),
        closing: () => new ServiceUnavailableError(new Error('closing')),
        queueFull: () => new OverloadedError('password hashing queue is full'),
        timedOut: () => new ServiceUnavailableError(new Error('password hashing timed out')),
        // A crash fails the call it was hashing with a 503; the calls behind it get a fresh thread.
        exited: () => new ServiceUnavailableError(new Error('hashing thread exited')),
        failed: () => new ServiceUnavailableError(new Error('hashing thread failed')),
        sendFailed: (cause) => new ServiceUnavailableError(cause),
      },
    });
  }

  hash(password: string, cost: HashCost): Promise<string> {
    const run = () => this.pool.run({ op: 'hash', password, cost }) as Promise<string>;
    return this.tracing.enabled ? this.tracing.span('password hash', {}, run) : run();
  }

  verify(storedHash: string, password: string): Promise<boolean> {
    const run = () => this.pool.run({ op: 'verify', password, storedHash }) as Promise<boolean>;
    return this.tracing.enabled ? this.tracing.span('password verify', {}, run) : run();
  }

  /** The OS thread ids of the running hashing threads (for tests and operators: `ps -L -o tid,ni`). */
  workerThreadIds(): number[] {
    return this.pool.ids();
  }

  /** Stops every thread; calls in flight or waiting fail with a 503. */
  close(): Promise<void> {
    return this.pool.close();
  }
}
