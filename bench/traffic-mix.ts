import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import {
  firstCursors,
  MIX,
  MIX_KINDS,
  type MixContext,
  type MixKind,
  mixRequests,
  sampleImage,
  signIn,
} from './mix-requests.js';
import { countCreatedPosts, restoreSeed } from './mix-restore.js';
import {
  type RelationSize,
  relationSizes,
  type SeededDatabase,
  SIGNED_IN_USERS,
  seededDatabase,
} from './mix-seed.js';
import { type MixTarget, startMixTarget } from './mix-target.js';
import { type OpenResult, runOpen, summaryExcept } from './open-load.js';
import { type RateSearchResult, searchRate } from './open-model.js';
import { cpuMeter, machineTicks } from './proc.js';
import { type Settings, whole } from './settings.js';
import { checkSharedState } from './shared-state-check.js';

/** BENCH_MIX_INSTANCES: the service alone (1), or two instances behind deploy/nginx.conf's balancer (2). */
function instanceCount(env: NodeJS.ProcessEnv): 1 | 2 {
  const count = whole(env, 'BENCH_MIX_INSTANCES', 1, 1);
  if (count > 2) throw new Error('BENCH_MIX_INSTANCES must be 1 or 2 (deploy/nginx.conf balances two)');
  return count === 1 ? 1 : 2;
}

/** The traffic-mix scenario's knobs (BENCH_MIX_*), so a short check and a full measurement need no edit. */
export function mixSettings(env: NodeJS.ProcessEnv) {
  return {
    database: env.BENCH_MIX_DATABASE?.trim() || 'accounts_bench_mix',
    users: whole(env, 'BENCH_MIX_USERS', 100_000, SIGNED_IN_USERS + 1000),
    posts: whole(env, 'BENCH_MIX_POSTS', 1_000_000, 1000),
    likesPerPost: whole(env, 'BENCH_MIX_LIKES_PER_POST', 5, 0),
    trialSeconds: whole(env, 'BENCH_MIX_TRIAL_SECONDS', 20, 1),
    startRate: whole(env, 'BENCH_MIX_START_RATE', 50, 1),
    warmupRate: whole(env, 'BENCH_MIX_WARMUP_RATE', 20, 1),
    maxTrials: whole(env, 'BENCH_MIX_MAX_TRIALS', 9, 1),
    p99TargetMs: whole(env, 'BENCH_MIX_P99_MS', 100, 1),
    p99Excluded: excludedKinds(env.BENCH_MIX_P99_EXCLUDE ?? 'post/create'),
    halfSeconds: whole(env, 'BENCH_MIX_HALF_SECONDS', 30, 1),
    aloneSeconds: whole(env, 'BENCH_MIX_ALONE_SECONDS', 20, 1),
    aloneMinRate: whole(env, 'BENCH_MIX_ALONE_MIN_RATE', 2, 1),
    signedIn: whole(env, 'BENCH_MIX_SIGNED_IN', 50, 1),
    instances: instanceCount(env),
  };
}
export type MixSettings = ReturnType<typeof mixSettings>;

/**
 * The kinds left out of the rate search's p99 (comma-separated; empty for none). By default post/create: it
 * re-encodes a photo in three sizes, which alone takes longer than the target on a small machine, and at 2 %
 * of the mix it is more than the 1 % tail, so with it no rate could pass. It is still sent, still fails a
 * trial by failing, and is compared with itself alone at half the rate like every other kind.
 */
function excludedKinds(value: string): ReadonlySet<MixKind> {
  const kinds = value
    .split(',')
    .map((kind) => kind.trim())
    .filter((kind) => kind !== '');
  for (const kind of kinds) {
    if (!(kind in MIX))
      throw new Error(`BENCH_MIX_P99_EXCLUDE: ${kind} is not one of ${Object.keys(MIX).join(', ')}`);
  }
  return new Set(kinds as MixKind[]);
}

export interface EndpointComparison {
  kind: MixKind;
  mix: OpenResult['all'];
  alone: OpenResult['all'];
  aloneRate: number;
  p50Ratio: number;
  p99Ratio: number;
  /**
   * CPU ms per request of the endpoint alone: the service with its hashing and image processes, and the
   * PostgreSQL backends of its pool (and, with two instances, both of them and nginx). CPU time, unlike
   * latency, barely moves when others share the machine.
   */
  cpu: { service: number; proxy: number; database: number };
}

export interface TrafficMixResult {
  seed: SeededDatabase;
  search: RateSearchResult & { trialResults: OpenResult[] };
  perCore: number;
  half: OpenResult;
  /** Of the half-rate window: the machine's busy share of all cores, and the service tree's CPU per request. */
  machineBusyPercent: number;
  serviceCpuMsPerRequest: number;
  /** The same, each instance's tree (one entry with one instance), and nginx's master and workers (0 without). */
  instanceCpuMsPerRequest: number[];
  proxyCpuMsPerRequest: number;
  /** With two instances: the requests nginx sent each instance over the run, and the shared-state check. */
  twoInstances?: { requestsPerInstance: Record<string, number>; sharedState: string[] };
  /** PostgreSQL's backends for the service's pool, CPU per request of the half-rate window. */
  databaseCpuMsPerRequest: number;
  endpoints: EndpointComparison[];
  sizes: RelationSize[];
  /** Bytes the service stored per uploaded post image (the original re-encoded plus its thumbnails). */
  imageBytesPerPost: number | undefined;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function directoryBytes(directory: string): Promise<{ bytes: number; files: number }> {
  let bytes = 0;
  let files = 0;
  for (const entry of await readdir(directory, { withFileTypes: true, recursive: true }).catch(() => [])) {
    if (!entry.isFile()) continue;
    bytes += (await stat(path.join(entry.parentPath, entry.name))).size;
    files++;
  }
  return { bytes, files };
}

function line(kind: string, result: OpenResult['all']): string {
  return `${kind} p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms, ${result.count} requests, ${result.failures} failed`;
}

/**
 * The app's traffic mix (MIX) as an open-model load on one seeded PostgreSQL database: the highest fixed
 * arrival rate whose p99 (from each request's due time) stays within the target with no failure, found by
 * stepping up and bisecting; then, at half that rate, each endpoint's p50 and p99 in the mix against the
 * same endpoint alone on the otherwise idle service. Ends by measuring the tables' sizes. With
 * BENCH_MIX_INSTANCES=2 the load goes through nginx to two instances (bench/mix-target.ts), after a check that
 * what one instance writes the other reads.
 */
export async function benchTrafficMix(
  serverUrl: string,
  settings: Settings,
  log: (line: string) => void,
): Promise<TrafficMixResult> {
  const mix = mixSettings(process.env);
  const dataDir = await mkdtemp(path.join(tmpdir(), 'accounts-bench-mix-'));
  log(
    `traffic-mix: database ${mix.database} (${mix.users.toLocaleString('en')} users, ${mix.posts.toLocaleString('en')} posts, ${mix.likesPerPost} likes a post)`,
  );
  const seed = await seededDatabase(serverUrl, mix.database, mix, { DATA_DIR: dataDir }, log);
  log(
    seed.seededNow
      ? `  seeded in ${seed.seedSeconds.toFixed(0)} s`
      : '  reused the complete seed (its bench_seed marker)',
  );
  await restoreSeed(seed.url);
  const tag = Date.now().toString(36);
  let runs = 0;
  let target: MixTarget | undefined;
  try {
    target = await startMixTarget(mix.instances, { DATA_DIR: dataDir, DATABASE_URL: seed.url });
    const { url, instances, proxy } = target;
    if (proxy)
      log(
        `  two instances (${instances.map((instance) => instance.url).join(', ')}) behind nginx at ${proxy.url}`,
      );
    const tokens = await signIn(url, mix.signedIn);
    const [first, second] = instances;
    const sharedState =
      first && second ? await checkSharedState([first.url, second.url], tokens[0] as string, tag) : [];
    for (const checked of sharedState) log(`  shared state: ${checked}`);
    const context: MixContext = {
      users: mix.users,
      posts: mix.posts,
      tokens,
      image: await sampleImage(),
      cursors: await firstCursors(url, tokens[0] as string),
    };
    const run = (rate: number, seconds: number, only?: MixKind) =>
      runOpen(url, rate, seconds, mixRequests(context, `${tag}r${++runs}`, runs, only));
    // Warmed at a gentle rate: an overloaded warm-up would leave a backlog (hashing queue) to the first trial.
    if (settings.warmupSeconds > 0) await run(mix.warmupRate, settings.warmupSeconds);

    const trialResults: OpenResult[] = [];
    const search = await searchRate(
      async (rate) => {
        await pause(2000);
        const result = await run(rate, mix.trialSeconds);
        trialResults.push(result);
        const judged = summaryExcept(result, mix.p99Excluded);
        const pass = result.all.failures === 0 && judged.p99 <= mix.p99TargetMs;
        const apart = [...mix.p99Excluded]
          .map((kind) => `; ${kind} p99 ${result.byKind[kind]?.p99.toFixed(1) ?? '-'} ms`)
          .join('');
        log(
          `  trial ${rate}/s: ${line('all', result.all)}; judged p99 ${judged.p99.toFixed(1)} ms${apart} → ${pass ? 'pass' : 'fail'}`,
        );
        for (const sample of result.failureSamples.slice(0, 3)) log(`    failed: ${sample}`);
        return pass;
      },
      { start: mix.startRate, factor: 2, precision: 0.1, maxRate: 100_000, maxTrials: mix.maxTrials },
    );
    const halfRate = Math.max(1, Math.round(search.best / 2));
    await pause(2000);
    const ticksBefore = machineTicks();
    const meter = cpuMeter(
      instances.map((instance) => instance.pid),
      mix.database,
      proxy?.pid,
    );
    const halfBefore = meter.snapshot();
    const half = await run(halfRate, mix.halfSeconds);
    const halfCpu = meter.since(halfBefore);
    const ticksAfter = machineTicks();
    log(`  half rate ${halfRate}/s: ${line('all', half.all)}`);
    const perRequest = (ms: number) => ms / Math.max(1, half.all.count);

    const endpoints: EndpointComparison[] = [];
    // What the service and its pool's backends spend with no request at all (timers, periodic jobs, pool
    // keep-alive), per ms of wall time: taken off each light window below, where it would weigh heavily.
    await pause(2000);
    const idleStarted = Date.now();
    const idleBefore = meter.snapshot();
    await pause(mix.aloneSeconds * 1000);
    const idleCpu = meter.since(idleBefore);
    const idleWall = Date.now() - idleStarted;
    const idlePerMs = {
      service: idleCpu.service / idleWall,
      proxy: idleCpu.proxy / idleWall,
      database: idleCpu.database / idleWall,
    };
    log(
      `  idle: service ${(idlePerMs.service * 1000).toFixed(0)} ms CPU a second, ${proxy ? `nginx ${(idlePerMs.proxy * 1000).toFixed(0)}, ` : ''}PostgreSQL ${(idlePerMs.database * 1000).toFixed(0)}`,
    );
    for (const kind of MIX_KINDS) {
      const aloneRate = Math.max(mix.aloneMinRate, Math.round((halfRate * MIX[kind]) / 100));
      await pause(2000);
      const started = Date.now();
      const aloneBefore = meter.snapshot();
      const aloneRun = await run(aloneRate, mix.aloneSeconds, kind);
      const wall = Date.now() - started;
      const aloneCpu = meter.since(aloneBefore);
      const alone = aloneRun.all;
      log(`  ${kind} alone at ${aloneRate}/s: ${line(kind, alone)}`);
      for (const sample of aloneRun.failureSamples.slice(0, 3)) log(`    failed: ${sample}`);
      // Per answered request: a request shed with a 503 under load costs next to nothing.
      const answered = Math.max(1, alone.count - alone.failures);
      const cpu = {
        service: (aloneCpu.service - idlePerMs.service * wall) / answered,
        proxy: (aloneCpu.proxy - idlePerMs.proxy * wall) / answered,
        database: (aloneCpu.database - idlePerMs.database * wall) / answered,
      };
      // A kind the half-rate window happened not to send still has its figures alone (CPU included).
      const inMix = half.byKind[kind] ?? {
        count: 0,
        p50: Number.NaN,
        p99: Number.NaN,
        max: Number.NaN,
        failures: 0,
      };
      endpoints.push({
        kind,
        mix: inMix,
        alone,
        aloneRate,
        p50Ratio: inMix.p50 / alone.p50,
        p99Ratio: inMix.p99 / alone.p99,
        cpu,
      });
    }
    const images = await directoryBytes(dataDir);
    const created = await countCreatedPosts(seed.url);
    return {
      seed,
      search: { ...search, trialResults },
      perCore: search.best / availableParallelism(),
      half,
      machineBusyPercent:
        (100 * (ticksAfter.busy - ticksBefore.busy)) / (ticksAfter.total - ticksBefore.total),
      serviceCpuMsPerRequest: perRequest(halfCpu.service),
      instanceCpuMsPerRequest: halfCpu.instances.map(perRequest),
      proxyCpuMsPerRequest: perRequest(halfCpu.proxy),
      databaseCpuMsPerRequest: perRequest(halfCpu.database),
      twoInstances: proxy && { requestsPerInstance: await proxy.requestsPerInstance(), sharedState },
      endpoints,
      sizes: await restoreSeed(seed.url).then(() => relationSizes(seed.url)),
      imageBytesPerPost: created > 0 && images.files > 0 ? images.bytes / created : undefined,
    };
  } finally {
    await target?.stop();
    await restoreSeed(seed.url).catch(() => undefined);
    await rm(dataDir, { recursive: true, force: true });
  }
}
