// @ts-check
/**
 * Lowers the CPU priority of the calling process's every thread: for the worker processes (password hashing,
 * image rendering), whose work must yield the cores to the API's event loop. Plain JavaScript, imported by
 * those workers' scripts (a forked Node 20 cannot run TypeScript).
 *
 * On Linux a nice value belongs to a thread, not to the process: `setPriority(n)` alone changes only the main
 * thread, while work can run on other threads — libvips's in the renderer, and libuv's threadpool, which Node
 * starts while loading the worker's modules (it reads ES module files on it). So each thread is set by its id from
 * /proc; threads started later inherit the value from the thread that starts them. Elsewhere (macOS) the
 * process-wide call is what there is.
 */
import { readdirSync } from 'node:fs';
import { setPriority } from 'node:os';

/** The nice value of the worker processes: positive = yields the CPU to the API's event loop (nice 0). */
export const WORKER_NICE = 10;

/** @param {number} nice */
export function lowerPriority(nice) {
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
