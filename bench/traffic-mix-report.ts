import { availableParallelism } from 'node:os';
import { MIX } from './mix-requests.js';
import type { TrafficMixResult } from './traffic-mix.js';

/** A figure, or a dash where there is none (an endpoint the half-rate window did not send). */
function figure(value: number, digits: number, unit = ''): string {
  return Number.isFinite(value) ? `${value.toFixed(digits)}${unit}` : '—';
}

/** What only the two-instance run has: how nginx spread the load, what the shared-state check saw, a caveat. */
function twoInstanceLines(two: NonNullable<TrafficMixResult['twoInstances']>, cores: number): string[] {
  const spread = Object.entries(two.requestsPerInstance)
    .map(([address, count]) => `${address} ${count}`)
    .join(', ');
  return [
    `two instances behind nginx (deploy/nginx.conf on 127.0.0.1 ports): requests each answered over the run: ${spread}`,
    ...two.sharedState.map((checked) => `shared state: ${checked}`),
    `both instances, nginx, PostgreSQL and the load generator share the same ${cores} cores: against the one-instance ` +
      "run this rate shows the proxy's cost and that state is shared, not more capacity",
  ];
}

/** The scenario's report: the search, the half-rate comparison as a Markdown table, the sizes. */
export function trafficMixReport(
  result: TrafficMixResult,
  judged: { p99TargetMs: number; p99Excluded: ReadonlySet<string> },
): string {
  const apart = [...judged.p99Excluded];
  const trials = result.search.trials
    .map((trial) => `${trial.rate}/s ${trial.pass ? 'pass' : 'fail'}`)
    .join(', ');
  const two = result.twoInstances;
  const rows = result.endpoints.map(
    (row) =>
      `| ${row.kind} | ${row.mix.count} | ${figure(row.mix.p50, 1)} | ${figure(row.mix.p99, 1)} | ${row.aloneRate} | ` +
      `${row.alone.p50.toFixed(1)} | ${row.alone.p99.toFixed(1)} | ${figure(row.p50Ratio, 2, '×')} | ${figure(row.p99Ratio, 2, '×')} | ` +
      `${row.mix.failures + row.alone.failures} | ${row.cpu.service.toFixed(2)} | ${two ? `${row.cpu.proxy.toFixed(2)} | ` : ''}${row.cpu.database.toFixed(2)} |`,
  );
  const sizes = result.sizes.map(
    (size) =>
      `| ${size.table} | ${size.rows.toLocaleString('en')} | ${(size.tableBytes / 2 ** 20).toFixed(1)} | ` +
      `${(size.indexBytes / 2 ** 20).toFixed(1)} | ${(size.totalBytes / 2 ** 20).toFixed(1)} | ` +
      `${size.rows > 0 ? (size.totalBytes / size.rows).toFixed(0) : '—'} |`,
  );
  const weighted = result.endpoints.reduce(
    (sum, row) => sum + (MIX[row.kind] / 100) * (row.cpu.service + row.cpu.proxy + row.cpu.database),
    0,
  );
  // Only endpoints the half-rate window sent have a ratio; the others are still in the CPU figure.
  const sent = result.endpoints.filter((row) => row.mix.count > 0);
  const worst = Math.max(...sent.map((row) => Math.max(row.p50Ratio, row.p99Ratio)));
  const cores = availableParallelism();
  const services = two
    ? `both instances and their children ${result.serviceCpuMsPerRequest.toFixed(2)} ms (${result.instanceCpuMsPerRequest.map((ms) => ms.toFixed(2)).join(' + ')}), nginx ${result.proxyCpuMsPerRequest.toFixed(2)} ms`
    : `service and its children ${result.serviceCpuMsPerRequest.toFixed(2)} ms`;
  return [
    `traffic-mix: rate search (p99 ≤ ${judged.p99TargetMs} ms from the due time${apart.length > 0 ? ` of all but ${apart.join(', ')}` : ''}, no failure): ${trials}`,
    `VERDICT traffic-mix: highest passing rate ${result.search.best}/s = ${result.perCore.toFixed(0)}/s per core (${cores} cores)${two ? ', two instances behind nginx' : ''}`,
    `half rate ${result.half.rate}/s: machine ${result.machineBusyPercent.toFixed(0)} % busy, CPU per request: ${services}, PostgreSQL ${result.databaseCpuMsPerRequest.toFixed(2)} ms`,
    ...(two ? twoInstanceLines(two, cores) : []),
    '',
    `| endpoint | in mix, requests | mix p50 ms | mix p99 ms | alone req/s | alone p50 ms | alone p99 ms | p50 ratio | p99 ratio | failed | alone CPU ms/req: service | ${two ? 'nginx | ' : ''}PostgreSQL |`,
    `| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ${two ? '---: | ' : ''}---: |`,
    ...rows,
    '',
    sent.length === 0
      ? 'worst ratio: no endpoint was sent in the half-rate window'
      : `worst ratio (target ≤ 3×): ${worst.toFixed(2)}×${worst <= 3 ? '' : ' (over 3×)'}`,
    `CPU per mix request (endpoints alone, weighted by the mix; service + ${two ? 'nginx + ' : ''}PostgreSQL): ${weighted.toFixed(2)} ms = ` +
      `at most ${(1000 / weighted).toFixed(0)} mix requests a second per fully busy core`,
    '',
    '| table | rows | heap MiB | indexes MiB | total MiB | bytes per row |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    ...sizes,
    '',
    `post image storage: ${result.imageBytesPerPost === undefined ? 'no post created' : `${(result.imageBytesPerPost / 1024).toFixed(0)} KiB per post of one image (all its sizes)`}`,
  ].join('\n');
}
