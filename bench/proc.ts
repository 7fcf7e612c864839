import { readdirSync, readFileSync } from 'node:fs';

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

/** The pids of a process's direct children, from every one of its threads (any thread may fork). */
export function childPids(pid: number): number[] {
  let threads: string[];
  try {
    threads = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  return threads.flatMap((thread) =>
    (read(`/proc/${pid}/task/${thread}/children`) ?? '')
      .trim()
      .split(/\s+/)
      .filter((word) => word !== '')
      .map(Number),
  );
}

/** A process and all its descendants (children, their children, …) alive at this moment. */
export function processTree(pid: number): number[] {
  const tree = [pid];
  for (let index = 0; index < tree.length; index++) {
    tree.push(...childPids(tree[index] as number));
  }
  return tree;
}

/** Peak resident memory, MB: the process alone, and the whole tree of it and its children. */
export interface TreePeak {
  process: number;
  /** The highest sum, at any one sample, of the VmHWM of the process and every descendant then alive. */
  tree: number;
}

/**
 * Samples a process tree's memory every `intervalMs` while it runs, so that children that come and go
 * (hashing and image rendering processes are started and retired on demand) are counted while they live.
 * Each sample sums the peaks (VmHWM) of the processes alive then: never less than what they held at once.
 */
export function sampleTreePeak(
  pid: number,
  intervalMs = 200,
): { peak(): TreePeak | undefined; stop(): void } {
  let best: TreePeak | undefined;
  const sample = () => {
    const own = peakRssMb(pid);
    if (own === undefined) return;
    const tree = processTree(pid).reduce((sum, member) => sum + (peakRssMb(member) ?? 0), 0);
    best = { process: Math.max(best?.process ?? 0, own), tree: Math.max(best?.tree ?? 0, tree) };
  };
  const timer = setInterval(sample, intervalMs);
  timer.unref();
  return {
    peak: () => {
      sample();
      return best;
    },
    stop: () => clearInterval(timer),
  };
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

/** CPU ms so far of each process: the PostgreSQL backends serving `database` (their titles name it). */
export function backendCpu(database: string): Map<number, number> {
  const cpu = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const title = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (title.startsWith('postgres: ') && title.includes(` ${database} `)) {
        cpu.set(Number(entry), cpuMs(Number(entry)) ?? 0);
      }
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return cpu;
}

export function treeCpu(pid: number): Map<number, number> {
  return new Map(processTree(pid).map((member) => [member, cpuMs(member) ?? 0]));
}

/**
 * CPU ms spent between two snapshots by the processes alive at the second: a process that started since
 * counts whole, one that ended (a pool connection closed when idle, a retired child) drops out rather than
 * taking its whole past off the sum.
 */
export function spentSince(before: Map<number, number>, after: Map<number, number>): number {
  let spent = 0;
  for (const [pid, ms] of after) spent += ms - (before.get(pid) ?? 0);
  return spent;
}

/** The service's process tree and its database backends, measured together. */
export function cpuMeter(pid: number, database: string) {
  const snapshot = () => ({ service: treeCpu(pid), database: backendCpu(database) });
  return {
    snapshot,
    since: (before: ReturnType<typeof snapshot>) => {
      const after = snapshot();
      return {
        service: spentSince(before.service, after.service),
        database: spentSince(before.database, after.database),
      };
    },
  };
}
