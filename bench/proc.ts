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

/**
 * The service's instances (each process with its children), the proxy in front of them (nginx's master and
 * workers; none with one instance) and their database backends, measured together.
 */
export function cpuMeter(servicePids: readonly number[], database: string, proxyPid?: number) {
  const snapshot = () => ({
    instances: servicePids.map((pid) => treeCpu(pid)),
    proxy: proxyPid === undefined ? new Map<number, number>() : treeCpu(proxyPid),
    database: backendCpu(database),
  });
  return {
    snapshot,
    since: (before: ReturnType<typeof snapshot>) => {
      const after = snapshot();
      const instances = after.instances.map((tree, index) =>
        spentSince(before.instances[index] ?? new Map(), tree),
      );
      return {
        service: instances.reduce((sum, ms) => sum + ms, 0),
        instances,
        proxy: spentSince(before.proxy, after.proxy),
        database: spentSince(before.database, after.database),
      };
    },
  };
}

/** Busy and total jiffies of the whole machine (/proc/stat): how much of both cores a window used. */
export function machineTicks(): { busy: number; total: number } {
  const fields = (read('/proc/stat')?.split('\n')[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((sum, value) => sum + value, 0);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  return { busy: total - idle, total };
}
