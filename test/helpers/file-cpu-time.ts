import { readFileSync } from 'node:fs';
import { afterAll } from 'vitest';

declare module 'vitest' {
  interface TaskMeta {
    /** CPU time the file took: its worker's threads and the child processes it ended (ms). */
    cpuMs?: number;
  }
}

/** Linux's clock ticks per second for the times in /proc (USER_HZ: 100 on every architecture Node runs on). */
const TICKS_PER_SECOND = 100;

/**
 * This process's CPU time so far in ms: its own threads (PGlite's, the hashing pool's) and every child
 * process it has waited for (services, commands, Chromium), from /proc/self/stat; undefined off Linux.
 */
function cpuMs(): number | undefined {
  let stat: string;
  try {
    stat = readFileSync('/proc/self/stat', 'utf8');
  } catch {
    return undefined;
  }
  // The fields after the command name, which is in parentheses and may hold spaces: utime, stime, cutime and
  // cstime are the 14th to 17th fields of the line, the 12th to 15th after it.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
  return (ticks * 1000) / TICKS_PER_SECOND;
}

// A setup file is evaluated again before each test file, also when files share a worker: this is the file's
// start, and its last after-hook (hooks after a file run in reverse order, so this one runs last) its end.
const start = cpuMs();

afterAll((file) => {
  const end = cpuMs();
  if (start !== undefined && end !== undefined) file.meta.cpuMs = end - start;
});
