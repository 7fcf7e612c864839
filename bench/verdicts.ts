import type { LoadResult } from './load.js';
import type { PeakRss } from './service.js';

/** One hot-path target: a measured ratio, which way is better, and whether it held. */
export interface Verdict {
  target: string;
  measured: string;
  limit: string;
  ratio: number;
  /** `min`: ratio ≥ goal (throughput); `max`: ratio ≤ goal (latency, memory). */
  kind: 'min' | 'max';
  goal: number;
  /** Judged on this backend; otherwise printed for information only. */
  judged: boolean;
  pass: boolean;
}

/** What the hot-path targets are judged on: each scenario and its limit, as measured in one run. */
export interface HotPathMeasures {
  validate: LoadResult;
  userGet: LoadResult;
  /** The bare route with its SELECT prepared: the limit of validate and user/get. */
  readLimit: LoadResult;
  login: LoadResult;
  verifyLimit: LoadResult;
  register: LoadResult;
  hashLimit: LoadResult;
  probeIdle: LoadResult;
  probeDuringLogin: LoadResult;
  probeRate: number;
  peakRss: PeakRss;
  /** On the embedded PGlite only validate is judged; the other rows are information. */
  embedded: boolean;
}

const perSecond = (result: LoadResult) => `${result.requestsPerSecond.toFixed(0)}/s`;

/** Each hot-path target, its ratio and goal, and whether it is judged on this backend. */
export function hotPathVerdicts({
  validate,
  userGet,
  readLimit,
  login,
  verifyLimit,
  register,
  hashLimit,
  probeIdle,
  probeDuringLogin,
  probeRate,
  peakRss,
  embedded,
}: HotPathMeasures): Verdict[] {
  const throughput = (
    target: string,
    result: LoadResult,
    base: LoadResult,
    goal: number,
    judged: boolean,
  ) => {
    const ratio = result.requestsPerSecond / base.requestsPerSecond;
    return {
      target,
      measured: perSecond(result),
      limit: perSecond(base),
      ratio,
      kind: 'min' as const,
      goal,
      judged,
      pass: ratio >= goal,
    };
  };
  /** A peak against the 200 MB budget. */
  const memory = (target: string, megabytes: number, judged: boolean): Verdict => ({
    target,
    measured: `${megabytes.toFixed(0)} MB`,
    limit: '200 MB',
    ratio: megabytes / 200,
    kind: 'max',
    goal: 1,
    judged,
    pass: megabytes <= 200,
  });
  const tailRatio = probeDuringLogin.p99 / probeIdle.p99;
  return [
    throughput('validate/email (taken), 50 conns ÷ bare Fastify', validate, readLimit, 0.8, true),
    throughput('login/email, 16 conns ÷ argon2 verify', login, verifyLimit, 0.9, !embedded),
    throughput('register, 16 conns ÷ argon2 hash', register, hashLimit, 0.85, !embedded),
    {
      target: `validate p99 at ${probeRate}/s, login flood ÷ idle`,
      measured: `${probeDuringLogin.p99.toFixed(1)} ms`,
      limit: `${probeIdle.p99.toFixed(1)} ms`,
      ratio: tailRatio,
      kind: 'max',
      goal: 3,
      judged: !embedded,
      pass: tailRatio <= 3,
    },
    throughput('user/get (Bearer), 50 conns ÷ bare Fastify', userGet, readLimit, 0.6, !embedded),
    memory('peak RSS of the service and its children, MB', peakRss.tree, !embedded),
    memory('peak RSS of the service process alone, MB', peakRss.process, false),
  ];
}

/** The verdict table: each target, its ratio, its goal, PASS/FAIL (or "info" where not judged). */
export function verdictTable(verdicts: Verdict[]): string {
  const header = ['target', 'measured', 'limit', 'ratio', 'goal', 'verdict'];
  const lines = verdicts.map((v) => [
    v.target,
    v.measured,
    v.limit,
    v.ratio.toFixed(2),
    `${v.kind === 'min' ? '≥' : '≤'} ${v.goal.toFixed(2)}`,
    v.judged ? (v.pass ? 'PASS' : 'FAIL') : `info (${v.pass ? 'met' : 'not met'})`,
  ]);
  const widths = header.map((title, i) =>
    Math.max(title.length, ...lines.map((line) => (line[i] ?? '').length)),
  );
  const format = (cells: string[]) =>
    `| ${cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  const rule = `| ${widths.map((width) => '-'.repeat(width)).join(' | ')} |`;
  return [format(header), rule, ...lines.map(format)].join('\n');
}
