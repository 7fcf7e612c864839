import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { median } from './alternation.js';
import { ROOT, startService } from './service.js';
import type { Verdict } from './verdicts.js';

/** What the build writes and a new DATA_DIR starts from (src/db/pglite-template.ts). */
const TEMPLATE = path.join(ROOT, 'dist/pglite-template.tar.gz');

/** The first start's targets: the process tree's peak below this, /healthz answering within that. */
const PEAK_TARGET_MB = 400;
const READY_TARGET_MS = 4_000;

/** /healthz is asked this often while a start is timed: a 100 ms poll would add up to 100 ms to each. */
const READY_POLL_MS = 20;

/** One start of the service: ms from the spawn to the first 200 of /healthz, and its peaks up to then, MB. */
export interface StartMeasure {
  readyMs: number;
  treeMb: number;
  processMb: number;
}

export interface FirstStartResult {
  /** Whether dist/pglite-template.tar.gz was there: without it each first start runs initdb. */
  template: boolean;
  /** A first start on a new, empty DATA_DIR per round. */
  first: StartMeasure[];
  /** The same DATA_DIR started again, its database already there: the limit beside the first start. */
  restart: StartMeasure[];
  /** Against the targets, on the medians; they mean something on a quiet machine only. */
  verdicts: Verdict[];
}

/** Starts the service on the embedded database in `dataDir`, reads its peaks once /healthz answers. */
async function measureStart(dataDir: string): Promise<StartMeasure> {
  // DATA_DIR alone: no DATABASE_URL, the default argon2 cost and limits as startService sets them.
  const service = await startService({ DATA_DIR: dataDir }, { pollMs: READY_POLL_MS });
  try {
    const peak = service.peakRss();
    return {
      readyMs: service.readyMs,
      treeMb: peak?.tree ?? Number.NaN,
      processMb: peak?.process ?? Number.NaN,
    };
  } finally {
    await service.stop();
  }
}

/**
 * `rounds` times: a first start on a new DATA_DIR (a copy of the template), stopped with SIGTERM, then a
 * restart on the same DATA_DIR (it opens the database as it is), then the directory removed. The two
 * alternate, so a host whose speed drifts through the run moves both alike.
 */
export async function benchFirstStart(
  rounds: number,
  log: (line: string) => void,
): Promise<FirstStartResult> {
  const template = existsSync(TEMPLATE);
  if (!template) {
    log(`${path.relative(ROOT, TEMPLATE)} is missing: each first start runs initdb instead of copying it.`);
  }
  const first: StartMeasure[] = [];
  const restart: StartMeasure[] = [];
  for (let round = 1; round <= rounds; round++) {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'accounts-bench-first-'));
    try {
      const started = await measureStart(dataDir);
      first.push(started);
      const restarted = await measureStart(dataDir);
      restart.push(restarted);
      log(
        `first-start round ${round} of ${rounds}: first ${started.readyMs.toFixed(0)} ms, ` +
          `${started.treeMb.toFixed(0)} MB; restart ${restarted.readyMs.toFixed(0)} ms, ${restarted.treeMb.toFixed(0)} MB`,
      );
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }
  return { template, first, restart, verdicts: firstStartVerdicts(first) };
}

/** The first start's medians against the targets (a peak below 400 MB, /healthz within 4 s). */
export function firstStartVerdicts(first: StartMeasure[]): Verdict[] {
  const peak = median(first.map((start) => start.treeMb));
  const ready = median(first.map((start) => start.readyMs));
  return [
    {
      target: 'first start: peak RSS of the process tree, MB',
      measured: `${peak.toFixed(0)} MB`,
      limit: `${PEAK_TARGET_MB} MB`,
      ratio: peak / PEAK_TARGET_MB,
      kind: 'max',
      goal: 1,
      judged: true,
      pass: peak < PEAK_TARGET_MB,
    },
    {
      target: 'first start: spawn to the first 200 of /healthz, ms',
      measured: `${ready.toFixed(0)} ms`,
      limit: `${READY_TARGET_MS} ms`,
      ratio: ready / READY_TARGET_MS,
      kind: 'max',
      goal: 1,
      judged: true,
      pass: ready <= READY_TARGET_MS,
    },
  ];
}

/** `3120 (2950–3400)`: the median and the range of some starts' values. */
function spread(values: number[]): [string, string] {
  const low = Math.min(...values).toFixed(0);
  const high = Math.max(...values).toFixed(0);
  return [median(values).toFixed(0), low === high ? low : `${low}–${high}`];
}

/** The table of both kinds of start and their ratio, then one verdict line. */
export function firstStartReport(result: FirstStartResult): string {
  const { first, restart } = result;
  const ready = (starts: StartMeasure[]) => starts.map((start) => start.readyMs);
  const tree = (starts: StartMeasure[]) => starts.map((start) => start.treeMb);
  const ratio = (pick: (starts: StartMeasure[]) => number[]) =>
    (median(pick(first)) / median(pick(restart))).toFixed(2);
  const header = ['start', 'ms to /healthz, median', 'range', 'tree peak MB, median', 'range'];
  const lines = [
    [
      `first (new DATA_DIR, ${result.template ? 'template copied' : 'initdb'})`,
      ...spread(ready(first)),
      ...spread(tree(first)),
    ],
    ['restart (same DATA_DIR), the limit', ...spread(ready(restart)), ...spread(tree(restart))],
    ['first ÷ restart', ratio(ready), '', ratio(tree), ''],
  ];
  const widths = header.map((title, column) =>
    Math.max(title.length, ...lines.map((line) => (line[column] ?? '').length)),
  );
  const format = (cells: string[]) =>
    `| ${cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join(' | ')} |`;
  const rule = `| ${widths.map((width, i) => (i === 0 ? '-'.repeat(width) : `${'-'.repeat(width - 1)}:`)).join(' | ')} |`;
  const met = result.verdicts.filter((verdict) => verdict.pass).length;
  const targets = result.verdicts.map((verdict) => `${verdict.measured} of ${verdict.limit}`).join(', ');
  return [
    `first start, embedded PGlite, ${first.length} rounds`,
    '',
    format(header),
    rule,
    ...lines.map(format),
    '',
    `VERDICT first start (judged on a quiet machine only): ${met === result.verdicts.length ? 'PASS' : 'FAIL'} ` +
      `(${met} of ${result.verdicts.length} targets met: tree peak < ${PEAK_TARGET_MB} MB, /healthz ≤ ` +
      `${READY_TARGET_MS} ms; medians ${targets})`,
  ].join('\n');
}
