// @ts-check
/**
 * A child for ChildPool's tests (test/unit/child-pool.test.ts), run as a forked process or as a worker thread:
 * answers each call by its id, with its own id (a process's pid, a thread's OS thread id, as the pool reports
 * it) and when it started and ended the call, so a test can tell which child ran what and whether two calls
 * overlapped.
 *   echo   answers `value` after `delayMs`;
 *   meet   writes a file named `value` into `dir`, then waits until `dir` holds `count` files (other children's)
 *          and answers `met` (true), or `false` after 20 s: calls running at once all meet, whatever the load;
 *   refuse answers ok: false (the pool's `answer` turns that into an error);
 *   hang   never answers (a stuck child, for timeouts and kills);
 *   exit   ends the child mid-call (a crash: a process exits, a thread ends).
 */
import { readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parentPort } from 'node:worker_threads';

/**
 * @typedef {{ id: number, op: 'echo' | 'meet' | 'refuse' | 'hang' | 'exit', value?: string, delayMs?: number,
 *   dir?: string, count?: number }} TestCall
 */

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
  if (call.op === 'meet') {
    const dir = call.dir ?? '.';
    writeFileSync(path.join(dir, call.value ?? String(call.id)), '');
    const giveUpAt = startedAt + 20_000;
    const poll = setInterval(() => {
      const met = readdirSync(dir).length >= (call.count ?? 1);
      if (!met && Date.now() < giveUpAt) return;
      clearInterval(poll);
      send({ id: call.id, ok: true, value: call.value, met, pid: childId, startedAt, endedAt: Date.now() });
    }, 10);
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
