import { existsSync } from 'node:fs';
import { getPriority } from 'node:os';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { OverloadedError, ServiceUnavailableError } from '../../src/errors.js';
import { HashingPool } from '../../src/lib/hashing-pool.js';
import { PasswordHasher } from '../../src/lib/passwords.js';
import { type PoolChild, startThread } from '../../src/lib/pool-children.js';
import { closeTestApp, createTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { registrationForm } from '../helpers/factories.js';
import { postForm } from '../helpers/http.js';

const CHEAP = { memoryKib: 1024, timeCost: 1, parallelism: 1 };
/**
 * A second or more of work: long enough that calls made together are all still in flight when the last is
 * made, and short enough to wait out (a thread ends only once the hash it runs has returned).
 */
const SLOW = { memoryKib: 65_536, timeCost: 16, parallelism: 1 };
/**
 * Well past STUCK_TIMEOUT_MS even on a fast, idle machine (about 5 s of one core here; 24 passes took 2.1 s,
 * too close to the bound), and still short enough to wait out while the thread finishes it.
 */
const STUCK = { memoryKib: 131_072, timeCost: 72, parallelism: 1 };
/** Past the start of a fresh thread on a loaded machine: the call after a timeout waits for one. */
const STUCK_TIMEOUT_MS = 2_000;

describe('HashingPool', () => {
  const pools: HashingPool[] = [];
  /**
   * Every thread the pools start: a thread cannot be killed from outside as a process could, so a test that
   * ends one mid-hash stops it through the pool's own handle.
   */
  const started: PoolChild[] = [];
  const recordingStart: typeof startThread = (script, options) => {
    const child = startThread(script, options);
    started.push(child);
    return child;
  };
  const pool = (options: { workers: number; queueLimit: number; timeoutMs: number }) => {
    const made = new HashingPool({ ...options, startThread: recordingStart });
    pools.push(made);
    return made;
  };
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((made) => made.close()));
  });

  it('hashes and verifies on worker threads running at a lower CPU priority', async () => {
    const hashing = pool({ workers: 2, queueLimit: 8, timeoutMs: 10_000 });
    const hasher = new PasswordHasher(CHEAP, undefined, hashing);
    const stored = await hasher.hash('correct horse');
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=1024,t=1,p=1\$/);
    expect(await hasher.verify(stored, 'correct horse')).toBe(true);
    expect(await hasher.verify(stored, 'wrong horse')).toBe(false);
    // A malformed stored hash verifies nothing (it is not a 503).
    expect(await hasher.verify('$argon2id$garbage', 'correct horse')).toBe(false);
    const threads = hashing.workerThreadIds();
    expect(threads.length).toBeGreaterThan(0);
    // Threads of this process, none of them its main thread (whose id is the pid).
    expect(threads).not.toContain(process.pid);
    for (const tid of threads) {
      expect(existsSync(`/proc/${process.pid}/task/${tid}`)).toBe(true);
      // On Linux a nice value is a thread's: the hashing thread's is lower than the event loop's.
      expect(getPriority(tid)).toBeGreaterThan(getPriority());
    }
    expect(getPriority(process.pid)).toBe(getPriority());
  });

  it('sheds a call at once when every thread is busy and the queue is full', async () => {
    const hashing = pool({ workers: 1, queueLimit: 1, timeoutMs: 60_000 });
    // Both settle when the pool closes; their outcomes are read once the shed call has been seen.
    const inFlight = Promise.allSettled([hashing.hash('one', SLOW), hashing.hash('two', SLOW)]);
    await expect(hashing.hash('three', SLOW)).rejects.toBeInstanceOf(OverloadedError);
    await hashing.close();
    for (const outcome of await inFlight) {
      expect(outcome.status).toBe('rejected');
      expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(ServiceUnavailableError);
    }
  });

  it('fails a call past its timeout, ends the stuck thread, and hashes again with a fresh one', async () => {
    const hashing = pool({ workers: 1, queueLimit: 1, timeoutMs: STUCK_TIMEOUT_MS });
    await hashing.hash('warm', CHEAP);
    const stuck = hashing.workerThreadIds();
    expect(stuck).toHaveLength(1);
    await expect(hashing.hash('stuck', STUCK)).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(hashing.workerThreadIds()).toEqual([]);
    expect(await hashing.hash('after', CHEAP)).toMatch(/^\$argon2id\$/);
    expect(hashing.workerThreadIds()).not.toEqual(stuck);
    // The stuck thread ends once its hash returns (native code cannot be interrupted).
    const [stuckTid] = stuck as [number];
    await vi.waitFor(() => expect(existsSync(`/proc/${process.pid}/task/${stuckTid}`)).toBe(false), {
      timeout: 110_000,
    });
  }, 120_000);

  it('counts a call behind a busy thread as waiting, and hashes it in a fresh thread when that one dies', async () => {
    const hashing = pool({ workers: 1, queueLimit: 1, timeoutMs: 60_000 });
    const before = started.length;
    await hashing.hash('warm', CHEAP);
    const [first] = hashing.workerThreadIds();
    const [thread] = started.slice(before) as [PoolChild];
    const slow = hashing.hash('slow', SLOW);
    const behind = hashing.hash('behind', CHEAP);
    // Handed over in advance, it still counts as waiting: the queue (1) is full.
    await expect(hashing.hash('shed', CHEAP)).rejects.toBeInstanceOf(OverloadedError);
    void thread.stop();
    await expect(slow).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(await behind).toMatch(/^\$argon2id\$v=19\$m=1024,t=1,p=1\$/);
    expect(hashing.workerThreadIds()).toHaveLength(1);
    expect(hashing.workerThreadIds()).not.toContain(first);
  });
});

describe.each(backends)('%s: load shedding over HTTP', (backend) => {
  it('answers the 503 envelope with Retry-After when the hashing queue is full', async () => {
    const ctx = await createTestApp(backend, {
      HASH_WORKERS: '1',
      HASH_QUEUE_LIMIT: '0',
      ARGON2_MEMORY_KIB: String(SLOW.memoryKib),
      ARGON2_TIME_COST: '8',
    });
    try {
      const responses = await Promise.all([
        postForm(ctx.app, '/v1/auth/register', registrationForm()),
        postForm(ctx.app, '/v1/auth/register', registrationForm()),
      ]);
      const statuses = responses.map((response) => response.statusCode).sort();
      expect(statuses).toEqual([200, 503]);
      const shed = responses.find((response) => response.statusCode === 503);
      expect(shed?.headers['retry-after']).toBe('1');
      expect(shed?.json()).toEqual({
        meta: {
          code: 503,
          error_type: 'ServiceUnavailableHttpException',
          error_message: 'Service Unavailable',
        },
        data: [],
      });
    } finally {
      await closeTestApp(ctx);
    }
  });
});
