// @ts-check
/**
 * A child for ChildPool's tests (test/unit/child-pool.test.ts): answers each call by its id, with its pid and
 * when it started and ended the call, so a test can tell which child ran what and whether two calls overlapped.
 *   echo   answers `value` after `delayMs`;
 *   refuse answers ok: false (the pool's `answer` turns that into an error);
 *   hang   never answers (a stuck child, for timeouts and kills).
 */

/** @typedef {{ id: number, op: 'echo' | 'refuse' | 'hang', value?: string, delayMs?: number }} TestCall */

process.on('message', (/** @type {TestCall} */ call) => {
  const startedAt = Date.now();
  if (call.op === 'hang') return;
  if (call.op === 'refuse') {
    process.send?.({
      id: call.id,
      ok: false,
      message: 'refused',
      pid: process.pid,
      startedAt,
      endedAt: startedAt,
    });
    return;
  }
  setTimeout(() => {
    process.send?.({
      id: call.id,
      ok: true,
      value: call.value,
      pid: process.pid,
      startedAt,
      endedAt: Date.now(),
    });
  }, call.delayMs ?? 0);
});
// Told to stop, or the parent went away.
process.on('disconnect', () => process.exit(0));
