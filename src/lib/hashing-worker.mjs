// @ts-check
/**
 * The password hasher's child process (forked by hashing-pool.ts). Plain JavaScript, read from src/ in tests
 * and in the built service alike (like render-worker.mjs), because a forked Node 20 cannot run TypeScript.
 *
 * Why a process: argon2id is ~15 ms of one core per call by design. On libuv's threadpool of the API's own
 * process, four hashes in flight on two cores compete with the event loop at the same priority, and every
 * cheap request waits behind them. Here the hashing runs at a lower CPU priority (nice 10): the kernel gives
 * the event loop the core first, and hashing takes what is left.
 *
 * Why synchronously, on this process's one thread: the process does nothing else, and the pool hands it its
 * next call before the last one is done (hashing-pool.ts, CALLS_PER_CHILD). So under load the thread goes
 * from one hash to the reply and straight into the next hash, never sleeping. Hashed on libuv's threadpool
 * instead, every call woke the main thread twice (to hand the call over, then to send the reply), each wake
 * preempting a hash on a busy core: 0.13–0.17 ms of CPU per call on the main thread, and about 1.4 % fewer
 * logins a second (docs/performance.md, "Warm-up"). A timeout still ends a hash at once: the pool kills
 * the process (SIGKILL), which needs no cooperation from a busy thread.
 */
import { hashSync, verifySync } from '@node-rs/argon2';
import { lowerPriority, WORKER_NICE } from './lower-priority.mjs';

// Below the API's event loop, every thread of this process (lower-priority.mjs says why every thread).
lowerPriority(WORKER_NICE);

/** `Algorithm.Argon2id` of @node-rs/argon2. */
const ARGON2ID = 2;

/**
 * @typedef {{ id: number, op: 'hash', password: string, cost: { memoryKib: number, timeCost: number, parallelism: number } }} HashJob
 * @typedef {{ id: number, op: 'verify', password: string, storedHash: string }} VerifyJob
 */

/** @param {HashJob | VerifyJob} job */
function run(job) {
  if (job.op === 'hash') {
    return hashSync(job.password, {
      algorithm: ARGON2ID,
      memoryCost: job.cost.memoryKib,
      timeCost: job.cost.timeCost,
      parallelism: job.cost.parallelism,
    });
  }
  try {
    return verifySync(job.storedHash, job.password);
  } catch {
    // A malformed stored hash verifies nothing (as in-process verification answers).
    return false;
  }
}

process.on('message', (/** @type {HashJob | VerifyJob} */ job) => {
  let reply;
  try {
    reply = { id: job.id, ok: true, result: run(job) };
  } catch (error) {
    // Only the error's name: its message could in principle carry what was hashed.
    reply = { id: job.id, ok: false, message: error instanceof Error ? error.name : 'error' };
  }
  // The parent may have gone while this call was hashing; then there is no one to answer.
  if (process.connected) process.send?.(reply);
});
// Told to stop, or the parent went away: nothing here is worth finishing.
process.on('disconnect', () => process.exit(0));
