import { mkdir, writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import path from 'node:path';
import { benchConsoleSearch } from './console-search.js';
import { type BenchDatabase, embeddedDatabase, serverDatabase } from './database.js';
import { benchFeed } from './feed.js';
import { benchFirstStart, type FirstStartResult, firstStartReport } from './first-start.js';
import { benchFlat } from './flat.js';
import { benchForgotTiming } from './forgot-timing.js';
import { benchHotPaths } from './hot-paths.js';
import { benchInspirers } from './inspirers.js';
import { type LoadOptions, type LoadResult, warmThenRun } from './load.js';
import { findNginx, NGINX_MISSING } from './mix-target.js';
import { hugePageSetting } from './proc.js';
import { benchReads, readRows } from './reads.js';
import { type Row, table } from './report.js';
import { migrate, ROOT, startService } from './service.js';
import { loadSettings, SCENARIO_GROUPS, type Settings } from './settings.js';
import { benchTokens } from './tokens.js';
import { benchTracing } from './tracing.js';
import { benchTrafficMix, mixSettings, type TrafficMixResult } from './traffic-mix.js';
import { trafficMixReport } from './traffic-mix-report.js';
import { type Verdict, verdictTable } from './verdicts.js';
import { benchWebhooks } from './webhooks.js';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

/** A fresh address on every request: each is a miss on the lower(email) index, as a sign-up form's check is. */
function freshEmails(tag: string): () => string {
  let n = 0;
  return () => new URLSearchParams({ email: `probe-${tag}-${++n}@bench.example` }).toString();
}

/**
 * Index, not scan: the uniqueness check (a miss) at `smallUsers`, then, after seeding up to `largeUsers`, again.
 * The ratio stays near 1.0 on an index; a sequential scan would fall with the table's size.
 */
async function benchGrowth(database: BenchDatabase, settings: Settings): Promise<Row[]> {
  const measure = async (tag: string): Promise<LoadResult> => {
    const service = await startService(database.env);
    try {
      const options: LoadOptions = {
        url: service.url,
        method: 'POST',
        path: '/v1/validate/email',
        headers: FORM,
        body: freshEmails(tag),
        connections: settings.connections,
        seconds: settings.seconds,
        serverPid: service.pid,
      };
      return await warmThenRun(options, settings.warmupSeconds);
    } finally {
      await service.stop();
    }
  };
  const small = await measure('small');
  await database.seedUsers(settings.smallUsers + 1, settings.largeUsers);
  const large = await measure('large');
  const smallName = `validate/email (fresh) @${settings.smallUsers.toLocaleString('en')}`;
  return [
    { scenario: smallName, result: small },
    {
      scenario: `validate/email (fresh) @${settings.largeUsers.toLocaleString('en')}`,
      result: large,
      baseline: { scenario: smallName, result: small, metric: 'req/s' },
    },
  ];
}

interface BackendReport {
  backend: string;
  rows: Row[];
  verdicts: Verdict[];
  peakRss?: { process: number; tree: number };
  summaries: string[];
}

async function benchBackend(database: BenchDatabase, settings: Settings): Promise<BackendReport> {
  const report: BackendReport = { backend: database.name, rows: [], verdicts: [], summaries: [] };
  await migrate(database.env);
  await database.seedUsers(1, settings.smallUsers);
  if (settings.scenarios.has('hot-paths')) {
    const hotPaths = await benchHotPaths(database, settings);
    report.rows.push(...hotPaths.rows);
    report.verdicts = hotPaths.verdicts;
    report.peakRss = hotPaths.peakRss;
    report.summaries.push(
      `peak RSS: the service and its children (hashing, image rendering) ${hotPaths.peakRss.tree.toFixed(0)} MB ` +
        `together; the service process alone ${hotPaths.peakRss.process.toFixed(0)} MB.`,
      ...hotPaths.notes,
    );
  }
  if (settings.scenarios.has('reads') && !settings.scenarios.has('hot-paths')) {
    const reads = await benchReads(database, settings, []);
    report.rows.push(...reads.limitRows, ...readRows(reads));
    report.summaries.push(...reads.notes);
  }
  if (settings.scenarios.has('forgot-timing'))
    report.summaries.push((await benchForgotTiming(database)).summary);
  if (settings.scenarios.has('growth')) report.rows.push(...(await benchGrowth(database, settings)));
  if (settings.scenarios.has('feed')) {
    const feed = await benchFeed(database, settings);
    report.rows.push(...feed.rows);
    report.summaries.push(feed.summary);
  }
  if (settings.scenarios.has('inspirers')) report.rows.push(...(await benchInspirers(database, settings)));
  if (settings.scenarios.has('tokens')) report.rows.push(...(await benchTokens(database, settings)));
  // `tokens` ends with tracing's comparison; `tracing` runs it alone.
  if (settings.scenarios.has('tokens') || settings.scenarios.has('tracing')) {
    report.rows.push(...(await benchTracing(database, settings)));
  }
  if (settings.scenarios.has('console-search')) {
    // After the groups above: it grows the table to a million users (from where growth left it).
    const seeded = settings.scenarios.has('growth') ? settings.largeUsers : settings.smallUsers;
    report.rows.push(...(await benchConsoleSearch(database, seeded)));
  }
  // Last: it adds a webhook endpoint to the database the groups above measure without one.
  if (settings.scenarios.has('webhooks')) {
    const webhooks = await benchWebhooks(database, settings);
    report.rows.push(...webhooks.rows);
    report.summaries.push(...webhooks.notes);
  }
  return report;
}

async function main(): Promise<number> {
  const settings = loadSettings(process.env, process.argv.slice(2));
  const cpu = cpus();
  console.log(
    `accounts bench: ${cpu.length} cores (${cpu[0]?.model.trim() ?? 'unknown cpu'}), Node ${process.version}; ` +
      `${settings.seconds} s per scenario after ${settings.warmupSeconds} s warm-up (login, register: ${settings.hashWarmupSeconds} s), 127.0.0.1; ` +
      `scenarios ${[...settings.scenarios].join(', ')}; backends ${[...settings.backends].join(', ')}; ` +
      `transparent huge pages: ${hugePageSetting()}`,
  );
  if (settings.databaseUrl === undefined) {
    console.log('DATABASE_URL is not set: PostgreSQL is skipped, only the embedded PGlite is measured.');
  }
  const backends: Array<() => Promise<BenchDatabase>> = [];
  const { databaseUrl } = settings;
  // The traffic mix and the flat comparison run on PostgreSQL alone, after the per-backend groups (if any).
  const serverOnly = {
    trafficMix: settings.scenarios.has('traffic-mix'),
    flat: settings.scenarios.has('flat'),
  };
  if ((serverOnly.trafficMix || serverOnly.flat) && databaseUrl === undefined) {
    throw new Error('--scenarios=traffic-mix and flat need DATABASE_URL (a PostgreSQL server)');
  }
  // Said before anything runs, not after the other groups and the seeding.
  if (serverOnly.trafficMix && mixSettings(process.env).instances === 2 && findNginx() === undefined) {
    console.error(NGINX_MISSING);
    return 1;
  }
  const perBackend = [
    ...SCENARIO_GROUPS,
    'reads',
    'forgot-timing',
    'webhooks',
    'tokens',
    'tracing',
    'console-search',
  ] as const;
  if (perBackend.some((group) => settings.scenarios.has(group))) {
    if (settings.backends.has('pglite')) backends.push(embeddedDatabase);
    if (settings.backends.has('postgres') && databaseUrl !== undefined) {
      backends.push(() => serverDatabase(databaseUrl));
    }
  }

  const reports: BackendReport[] = [];
  for (const open of backends) {
    const database = await open();
    try {
      const report = await benchBackend(database, settings);
      reports.push(report);
      console.log(`\n${report.backend}\n`);
      if (report.rows.length > 0) console.log(`${table(report.rows)}\n`);
      for (const summary of report.summaries) console.log(summary);
      if (report.verdicts.length > 0) {
        const judged = report.verdicts.filter((verdict) => verdict.judged);
        const met = judged.filter((verdict) => verdict.pass).length;
        console.log(`\nhot path targets on ${report.backend}:\n\n${verdictTable(report.verdicts)}\n`);
        console.log(
          `VERDICT ${report.backend}: ${met === judged.length ? 'PASS' : 'FAIL'} (${met} of ${judged.length} targets met)`,
        );
      }
    } finally {
      await database.drop();
    }
  }

  // Embedded alone, on directories of its own: no backend above, and none of their seeding, is needed.
  let firstStart: FirstStartResult | undefined;
  if (settings.scenarios.has('first-start')) {
    firstStart = await benchFirstStart(settings.firstStartRounds, console.log);
    console.log(`\n${firstStartReport(firstStart)}\n`);
  }

  let trafficMix: TrafficMixResult | undefined;
  if (serverOnly.trafficMix && databaseUrl !== undefined) {
    trafficMix = await benchTrafficMix(databaseUrl, settings, console.log);
    console.log(`\n${trafficMixReport(trafficMix, mixSettings(process.env))}\n`);
  }
  if (serverOnly.flat && databaseUrl !== undefined) {
    const flat = await benchFlat(databaseUrl, settings, console.log);
    reports.push({ backend: 'postgres (flat)', rows: flat.rows, verdicts: [], summaries: [flat.summary] });
    console.log(`\npostgres, flat parts\n\n${table(flat.rows)}\n\n${flat.summary}`);
  }

  const spoiled = reports.flatMap((report) =>
    report.rows.filter((row) => row.result.failures > 0).map((row) => `${report.backend} ${row.scenario}`),
  );
  if (trafficMix) {
    // Trials of the rate search fail by design; the half-rate mix and the endpoints alone must not.
    const failed =
      trafficMix.half.all.failures + trafficMix.endpoints.reduce((sum, row) => sum + row.alone.failures, 0);
    if (failed > 0) spoiled.push('traffic-mix at half rate or an endpoint alone');
  }
  for (const name of spoiled) console.error(`${name}: failed requests (unexpected status, error or timeout)`);
  const judged = reports.flatMap((report) => report.verdicts.filter((verdict) => verdict.judged));
  const passed = judged.length > 0 && judged.every((verdict) => verdict.pass) && spoiled.length === 0;
  if (judged.length > 0) {
    console.log(
      `\nVERDICT hot paths (${reports.map((report) => report.backend).join(' + ')}): ${passed ? 'PASS' : 'FAIL'}` +
        `${spoiled.length > 0 ? ' (failed requests spoil the run)' : ''}`,
    );
  }
  const jsonPath = path.resolve(ROOT, settings.jsonPath);
  await mkdir(path.dirname(jsonPath), { recursive: true });
  await writeFile(
    jsonPath,
    `${JSON.stringify({ cores: cpu.length, node: process.version, settings: { ...settings, scenarios: [...settings.scenarios], backends: [...settings.backends], databaseUrl: settings.databaseUrl ? 'set' : undefined }, reports, firstStart, trafficMix, passed }, null, 2)}\n`,
  );
  console.log(`results as JSON: ${jsonPath}`);
  if (spoiled.length > 0) return 1;
  const firstStartMissed = firstStart?.verdicts.some((verdict) => !verdict.pass) ?? false;
  return (judged.length > 0 && !passed) || firstStartMissed ? 2 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
