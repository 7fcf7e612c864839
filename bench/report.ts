import type { LoadResult } from './load.js';

/** One line of the table: a measurement and, unless it is a floor, what it is compared with. */
export interface Row {
  scenario: string;
  result: LoadResult;
  baseline?: {
    scenario: string;
    result: LoadResult;
    /** Throughput rows compare req/s (higher is better); latency rows compare p99 or p50 (lower is better). */
    metric: 'req/s' | 'p99' | 'p50';
  };
}

function ratio(row: Row): string {
  const { baseline } = row;
  if (baseline === undefined) return '—';
  const [value, base] =
    baseline.metric === 'req/s'
      ? [row.result.requestsPerSecond, baseline.result.requestsPerSecond]
      : [row.result[baseline.metric], baseline.result[baseline.metric]];
  return base === 0 ? 'n/a' : `${(value / base).toFixed(2)} × ${baseline.metric}`;
}

// autocannon records latency in whole milliseconds (a 0 is an answer in under one); the probe has fractions.
function milliseconds(value: number): string {
  if (value === 0) return '<1';
  return Number.isInteger(value) || value >= 10 ? value.toFixed(0) : value.toFixed(2);
}

/** A Markdown table, so a run can be pasted into docs/performance.md as it is. */
export function table(rows: Row[]): string {
  const header = ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'CPU ms/req', 'failed', 'baseline', 'ratio'];
  const lines = rows.map((row) => [
    row.scenario,
    row.result.requestsPerSecond.toFixed(0),
    milliseconds(row.result.p50),
    milliseconds(row.result.p99),
    row.result.cpuMsPerRequest === undefined ? '—' : row.result.cpuMsPerRequest.toFixed(3),
    String(row.result.failures),
    row.baseline?.scenario ?? '—',
    ratio(row),
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...lines.map((line) => (line[column] ?? '').length)),
  );
  // Numbers right-aligned, words left-aligned, as a reader scans them.
  const numeric = [false, true, true, true, true, true, false, false];
  const format = (cells: string[]) =>
    `| ${cells.map((cell, i) => (numeric[i] ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0))).join(' | ')} |`;
  const rule = `| ${widths.map((width, i) => (numeric[i] ? `${'-'.repeat(width - 1)}:` : '-'.repeat(width))).join(' | ')} |`;
  return [format(header), rule, ...lines.map(format)].join('\n');
}
