import { readFileSync } from 'node:fs';

/** What /proc says about a process: read on Linux, undefined elsewhere (the bench still runs, without it). */
function read(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** Peak resident set size (VmHWM) in MB of a live process. */
export function peakRssMb(pid: number): number | undefined {
  const match = /^VmHWM:\s+(\d+) kB/m.exec(read(`/proc/${pid}/status`) ?? '');
  return match ? Number(match[1]) / 1024 : undefined;
}

/** The pids of a process's direct children (worker processes of the service). */
export function childPids(pid: number): number[] {
  const text = read(`/proc/${pid}/task/${pid}/children`) ?? '';
  return text
    .trim()
    .split(/\s+/)
    .filter((word) => word !== '')
    .map(Number);
}

/** User + system CPU time of a process so far, in ms (clock ticks of 10 ms: compare over whole seconds). */
export function cpuMs(pid: number): number | undefined {
  const stat = read(`/proc/${pid}/stat`);
  if (stat === undefined) return undefined;
  // Field 2 (comm) may hold spaces; the fields after its closing parenthesis are fixed.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return (utime + stime) * 10;
}

/**
 * The host's transparent huge page setting as Linux shows it (`always [madvise] never`): argon2's cost depends
 * on it (src/lib/huge-pages.ts), so a run's hashing figures are read with it.
 */
export function hugePageSetting(): string {
  return read('/sys/kernel/mm/transparent_hugepage/enabled')?.trim() ?? 'unknown';
}
