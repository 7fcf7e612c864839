// @ts-check
/**
 * The password hasher's child process (forked by hashing-pool.ts). Plain JavaScript, read from src/ in tests
 * and in the built service alike (like render-worker.mjs), because a forked Node 20 cannot run TypeScript.
 *
 * Why a process: argon2id is ~15 ms of one core per call by design. On libuv's threadpool of the API's own
 * process, four hashes in flight on two cores compete with the event loop at the same priority, and every
 * cheap request waits behind them. Here the hashing runs at a lower CPU priority (nice 10): the kernel gives
 * the event loop the core first, and hashing takes what is left.
 */
import { readdirSync } from 'node:fs';
import { setPriority } from 'node:os';
import { hash, verify } from '@node-rs/argon2';

/** Nice value of this process: positive = yields the CPU to the API's event loop (nice 0). */
const HASHING_NICE = 10;

/**
 * Lowers the priority of every thread of this process. On Linux a nice value belongs to a thread, not to the
 * process: `setPriority(n)` alone changes only the main thread, and the thread that hashes is libuv's, which
 * Node started while loading this very module (it reads ES module files on that threadpool). So each thread is
 * set by its id from /proc; threads started later inherit the value. Elsewhere (macOS) the call sets the
 * whole process.
 *
 * @param {number} nice
 */
function lowerPriority(nice) {
  let threads = [];
  try {
    threads = readdirSync('/proc/self/task').map(Number);
  } catch {
    // No /proc: not Linux, where the process-wide call below is what there is.
  }
  try {
    setPriority(nice);
    for (const thread of threads) setPriority(thread, nice);
  } catch {
    // A platform that refuses (no permission to change it): hashing still works, at the same priority.
  }
}
lowerPriority(HASHING_NICE);

/** `Algorithm.Argon2id` of @node-rs/argon2. */
const ARGON2ID = 2;

/**
 * @typedef {{ id: number, op: 'hash', password: string, cost: { memoryKib: number, timeCost: number, parallelism: number } }} HashJob
 * @typedef {{ id: number, op: 'verify', password: string, storedHash: string }} VerifyJob
 */

/** @param {HashJob | VerifyJob} job */
async function run(job) {
  if (job.op === 'hash') {
    return hash(job.password, {
      algorithm: ARGON2ID,
      memoryCost: job.cost.memoryKib,
      timeCost: job.cost.timeCost,
      parallelism: job.cost.parallelism,
    });
  }
  try {
    return await verify(job.storedHash, job.password);
  } catch {
    // A malformed stored hash verifies nothing (as in-process verification answers).
    return false;
  }
}

process.on('message', (/** @type {HashJob | VerifyJob} */ job) => {
  run(job).then(
    (result) => process.send?.({ id: job.id, ok: true, result }),
    // Only the error's name: its message could in principle carry what was hashed.
    (error) =>
      process.send?.({ id: job.id, ok: false, message: error instanceof Error ? error.name : 'error' }),
  );
});
// Told to stop, or the parent went away: nothing here is worth finishing.
process.on('disconnect', () => process.exit(0));
