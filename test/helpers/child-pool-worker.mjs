// @ts-check
/**
 * A child for ChildPool's tests (test/unit/child-pool.test.ts), run as a forked process or as a worker thread:
 * answers each call by its id, with its own id (a process's pid, a thread's OS thread id, as the pool reports
 * it) and when it started and ended the call, so a test can tell which child ran what and whether two calls
 * overlapped.
 *   echo   answers `value` after `delayMs`;
 *   refuse answers ok: false (the pool's `answer` turns that into an error);
 *   hang   never answers (a stuck child, for timeouts and kills);
 *   exit   ends the child mid-call (a crash: a process exits, a thread ends).
 */
import { readlinkSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';

/** @typedef {{ id: number, op: 'echo' | 'refuse' | 'hang' | 'exit', value?: string, delayMs?: number }} TestCall */

const port = parentPort;
/** The id the pool reports for this child: a thread announces its own first (pool-children.ts). */
let childId = process.pid;
if (port) {
  childId = Number(readlinkSync('/proc/thread-self').split('/').at(-1));
  port.postMessage({ threadTid: childId });
}

/** @param {object} reply */
function send(reply) {
  if (port) port.postMessage(reply);
  else process.send?.(reply);
}

/** @param {TestCall} call */
function answer(call) {
  const startedAt = Date.now();
  if (call.op === 'hang') return;
  // In a worker thread process.exit ends only the thread.
  if (call.op === 'exit') process.exit(1);
  if (call.op === 'refuse') {
    send({ id: call.id, ok: false, message: 'refused', pid: childId, startedAt, endedAt: startedAt });
    return;
  }
  setTimeout(() => {
    send({ id: call.id, ok: true, value: call.value, pid: childId, startedAt, endedAt: Date.now() });
  }, call.delayMs ?? 0);
}

if (port) {
  port.on('message', answer);
} else {
  process.on('message', answer);
  // Told to stop, or the parent went away.
  process.on('disconnect', () => process.exit(0));
}
