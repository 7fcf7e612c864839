import { getPriority } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { OverloadedError, ServiceUnavailableError } from '../../src/errors.js';
import { HashingPool } from '../../src/lib/hashing-pool.js';
import { PasswordHasher } from '../../src/lib/passwords.js';
import { closeTestApp, createTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { registrationForm } from '../helpers/factories.js';
import { postForm } from '../helpers/http.js';
import { threadPriorities } from '../helpers/threads.js';

const CHEAP = { memoryKib: 1024, timeCost: 1, parallelism: 1 };
/** Seconds of work: long enough that calls made together are all still in flight when the last is made. */
const SLOW = { memoryKib: 262_144, timeCost: 20, parallelism: 1 };

describe('HashingPool', () => {
  const pools: HashingPool[] = [];
  const pool = (options: { workers: number; queueLimit: number; timeoutMs: number }) => {
    const made = new HashingPool(options);
    pools.push(made);
    return made;
  };
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((made) => made.close()));
  });

  it('hashes and verifies in child processes running at a lower CPU priority', async () => {
    const hashing = pool({ workers: 2, queueLimit: 8, timeoutMs: 10_000 });
    const hasher = new PasswordHasher(CHEAP, undefined, hashing);
    const stored = await hasher.hash('correct horse');
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=1024,t=1,p=1\$/);
    expect(await hasher.verify(stored, 'correct horse')).toBe(true);
    expect(await hasher.verify(stored, 'wrong horse')).toBe(false);
    // A malformed stored hash verifies nothing (it is not a 503).
    expect(await hasher.verify('$argon2id$garbage', 'correct horse')).toBe(false);
    const pids = hashing.workerPids();
    expect(pids.length).toBeGreaterThan(0);
    expect(pids).not.toContain(process.pid);
    // On Linux a nice value is a thread's: every thread of the child must have it, whichever one hashes (until
    // 2026-11-24 libuv's thread hashed, and only the main thread had it).
    for (const pid of pids) {
      const priorities = threadPriorities(pid);
      expect(priorities.length).toBeGreaterThan(0);
      for (const priority of priorities) expect(priority).toBeGreaterThan(getPriority());
    }
  });

  it('sheds a call at once when every process is busy and the queue is full', async () => {
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

  it('fails a call past its timeout, kills the stuck process, and hashes again with a fresh one', async () => {
    const hashing = pool({ workers: 1, queueLimit: 1, timeoutMs: 300 });
    await hashing.hash('warm', CHEAP);
    const stuck = hashing.workerPids();
    expect(stuck).toHaveLength(1);
    await expect(hashing.hash('slow', SLOW)).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(hashing.workerPids()).toEqual([]);
    expect(await hashing.hash('after', CHEAP)).toMatch(/^\$argon2id\$/);
    expect(hashing.workerPids()).not.toEqual(stuck);
  });

  it('counts a call behind a busy child as waiting, and hashes it in a fresh child when that one dies', async () => {
    const hashing = pool({ workers: 1, queueLimit: 1, timeoutMs: 60_000 });
    await hashing.hash('warm', CHEAP);
    const [first] = hashing.workerPids();
    const slow = hashing.hash('slow', SLOW);
    const behind = hashing.hash('behind', CHEAP);
    // Handed over in advance, it still counts as waiting: the queue (1) is full.
    await expect(hashing.hash('shed', CHEAP)).rejects.toBeInstanceOf(OverloadedError);
    process.kill(first as number, 'SIGKILL');
    await expect(slow).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(await behind).toMatch(/^\$argon2id\$v=19\$m=1024,t=1,p=1\$/);
    expect(hashing.workerPids()).toHaveLength(1);
    expect(hashing.workerPids()).not.toContain(first);
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
