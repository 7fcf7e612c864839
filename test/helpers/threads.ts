import { existsSync, readdirSync } from 'node:fs';
import { getPriority } from 'node:os';

/**
 * The nice value of every live thread of a process (Linux: each of /proc/<pid>/task; a nice value is per
 * thread there). Elsewhere the process's own. A thread that ends while it is read is left out; a process that
 * has ended has none.
 */
export function threadPriorities(pid: number): number[] {
  if (!existsSync('/proc/self/task')) return [getPriority(pid)];
  let threads: number[];
  try {
    threads = readdirSync(`/proc/${pid}/task`).map(Number);
  } catch {
    return [];
  }
  const priorities: number[] = [];
  for (const thread of threads) {
    try {
      priorities.push(getPriority(thread));
    } catch {
      // It ended between the listing and the read.
    }
  }
  return priorities;
}
