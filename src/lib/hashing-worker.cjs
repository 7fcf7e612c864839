// @ts-check
/**
 * The password hasher's worker thread (started by hashing-pool.ts). Plain JavaScript, read from src/ in
 * tests and in the built service alike (like render-worker.mjs), because a Node 20 worker cannot run
 * TypeScript. CommonJS: a thread that loads an ES module also starts Node's ES module loader, ~5 MB more per
 * thread (docs/performance.md, "Memory").
 *
 * Why a thread of the service's process, at a lower CPU priority: argon2id is ~15 ms of one core per call by
 * design. On libuv's threadpool, four hashes in flight on two cores compete with the event loop at the same
 * priority, and every cheap request waits behind them. Here the hashing thread runs at nice 10 (on Linux a
 * nice value is a thread's): the kernel gives the event loop the core first, and hashing takes what is left.
 * A thread rather than a forked process: it shares the process's Node runtime and native modules, where each
 * hashing process held ~50 MB of its own besides the hash (docs/performance.md, "Memory").
 *
 * Why synchronously, on this thread: it does nothing else, and the pool hands it its next call before the
 * last one is done (hashing-pool.ts, CALLS_PER_CHILD). So under load the thread goes from one hash to the
 * reply and straight into the next hash, never sleeping. A timeout or close() terminates the thread, which
 * takes effect once the hash running then returns (native code cannot be interrupted): the caller is
 * answered at once, and a fresh thread takes the calls behind it.
 */
const { parentPort } = require('node:worker_threads');
const { hashSync, verifySync } = require('@node-rs/argon2');
const { lowerThreadPriority, WORKER_NICE } = require('./lower-priority.cjs');

const port = parentPort;
if (!port) throw new Error('hashing-worker.cjs runs as a worker thread');

// Below the API's event loop; the pool learns the thread's id from this first message (pool-children.ts).
port.postMessage({ threadTid: lowerThreadPriority(WORKER_NICE) ?? null });

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

port.on('message', (/** @type {HashJob | VerifyJob} */ job) => {
  let reply;
  try {
    reply = { id: job.id, ok: true, result: run(job) };
  } catch (error) {
    // Only the error's name: its message could in principle carry what was hashed.
    reply = { id: job.id, ok: false, message: error instanceof Error ? error.name : 'error' };
  }
  port.postMessage(reply);
});
