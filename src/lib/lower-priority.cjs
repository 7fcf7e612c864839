// @ts-check
/**
 * Lowers the CPU priority of the workers whose work must yield the cores to the API's event loop: every
 * thread of a worker process (image rendering), or one worker thread (password hashing). Plain JavaScript,
 * loaded by those workers' scripts (a forked Node 20 or a worker thread cannot run TypeScript). CommonJS:
 * the hashing thread loads no ES module, because Node's ES module loader costs a worker thread ~5 MB more
 * (docs/performance.md, "Memory"); render-worker.mjs imports it all the same.
 *
 * On Linux a nice value belongs to a thread, not to the process: `setPriority(n)` alone changes only the main
 * thread, while work can run on other threads — libvips's in the renderer, and libuv's threadpool, which Node
 * starts while loading the worker's modules (it reads ES module files on it). So each thread is set by its id from
 * /proc; threads started later inherit the value from the thread that starts them. Elsewhere (macOS) the
 * process-wide call is what there is.
 */
const { readdirSync, readlinkSync } = require('node:fs');
const { setPriority } = require('node:os');

/** The nice value of the worker processes: positive = yields the CPU to the API's event loop (nice 0). */
const WORKER_NICE = 10;

/** @param {number} nice */
function lowerPriority(nice) {
  // Linux: every thread by its id (the main thread's is the process id). Elsewhere 0, the calling process.
  /** @type {number[]} */
  let threads = [0];
  try {
    threads = readdirSync('/proc/self/task').map(Number);
  } catch {
    // No /proc: not Linux.
  }
  for (const thread of threads) {
    try {
      setPriority(thread, nice);
    } catch {
      // A thread that ended since the listing, or a platform that refuses (no permission to change it): the
      // others are still set, and the work still runs.
    }
  }
}

/**
 * Lowers the CPU priority of the calling thread only: for a worker thread, which shares its process with the
 * API's event loop (a process-wide change would slow the API too). On Linux /proc/thread-self is a link to
 * `<pid>/task/<tid>`; the thread's id is what `setPriority` takes. Elsewhere nothing changes.
 * @param {number} nice
 * @returns {number | undefined} the thread's OS id, where there is one to read
 */
function lowerThreadPriority(nice) {
  let tid;
  try {
    tid = Number(readlinkSync('/proc/thread-self').split('/').at(-1));
  } catch {
    // No /proc/thread-self: not Linux (or a kernel before 3.17); the thread runs at the process's priority.
    return undefined;
  }
  try {
    setPriority(tid, nice);
  } catch {
    // Refused (no permission to change it): the work still runs, at the process's priority.
  }
  return tid;
}

module.exports = { WORKER_NICE, lowerPriority, lowerThreadPriority };
