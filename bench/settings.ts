import { availableParallelism } from 'node:os';

/** The groups of scenarios a run can be limited to (`--scenarios=hot-paths,growth` or BENCH_SCENARIOS). */
export const SCENARIO_GROUPS = ['hot-paths', 'growth', 'feed', 'inspirers'] as const;
/**
 * Groups run only when named: on PostgreSQL alone, and long (the traffic mix seeds 6.1M rows once and
 * searches for its highest rate in a series of trials; `flat` compares a small seed with that one); and
 * `first-start`, the embedded database alone: a first start on a new DATA_DIR against its restart; `reads`,
 * the part of `hot-paths` without argon2: validate and user/get beside their bare limit; `forgot-timing`,
 * forgot-password's time for a known address against an unknown one; `webhooks`, register and login beside
 * their argon2 limits without and with a webhook endpoint configured; `tokens`, auth/token beside user/get and
 * a jose verification of an access token beside a user/get round trip, then `tracing`; `tracing` alone,
 * user/get with tracing off, every span exported and one request in ten sampled; `console-search`, the
 * console's user search on a million users, in process.
 */
export const OPT_IN_GROUPS = [
  'traffic-mix',
  'flat',
  'first-start',
  'reads',
  'forgot-timing',
  'webhooks',
  'tokens',
  'tracing',
  'console-search',
] as const;
export type ScenarioGroup = (typeof SCENARIO_GROUPS)[number] | (typeof OPT_IN_GROUPS)[number];
const KNOWN_GROUPS: readonly string[] = [...SCENARIO_GROUPS, ...OPT_IN_GROUPS];

/** How long and how hard each scenario runs; from BENCH_* variables so a quick or a longer run needs no edit. */
export interface Settings {
  seconds: number;
  /**
   * Unrecorded load before each scenario, on the same process. Five seconds, not one, as for login and
   * register: under the validate load a fresh process, the service's as much as the bare route's, spent
   * 15–35 % more CPU per request in its first five seconds than from the tenth on (docs/performance.md,
   * "Warm-up"). A ratio of two servers compares them warm; both sides get the same warm-up.
   */
  warmupSeconds: number;
  /**
   * Warm-up of the login and register loads, 20 s. At two hundred requests a second V8 needs that long to
   * optimise a request path it has not run yet (the process is fresh); the argon2 limit is native code and
   * needs none, and a service in production runs warm. Measured in consecutive 5 s windows of one fresh
   * service: CPU per login 1.6, 1.2, 0.96, 0.86, then 0.76–0.83 from the twentieth second on; per sign-up
   * 2.0, 1.4, 1.2, 1.1, then 0.94–1.0 (docs/performance.md, "Warm-up"). Each run prints its own curve.
   */
  hashWarmupSeconds: number;
  /**
   * Rounds of alternated windows (bench/alternation.ts, `alternated`): measured windows of the login and of
   * the register load, each between two windows of its raw argon2 limit, and on PostgreSQL of validate and
   * user/get between windows of the bare route: 5, so 6 of each limit, and at least 5: each side is the median
   * of its windows, and fewer than five leave one spoiled window too much weight. `BENCH_ROUNDS`;
   * `BENCH_HASH_ROUNDS`, its name while only the hashing scenarios alternated, is still read.
   */
  rounds: number;
  /** Rounds of `first-start`, each a first start on a new DATA_DIR, then its restart: 5. */
  firstStartRounds: number;
  connections: number;
  /** The validate probe that runs idle and beside the login load: one connection at this fixed rate. */
  probeRate: number;
  /** argon2 calls in flight for the login and register limits: the service's default HASH_CONCURRENCY. */
  hashInFlight: number;
  scenarios: ReadonlySet<ScenarioGroup>;
  /** `--embedded`: PGlite only even when DATABASE_URL is set; `--postgres`: PostgreSQL only. */
  backends: ReadonlySet<'pglite' | 'postgres'>;
  /** Where the run's results are written as JSON. */
  jsonPath: string;
  /** Users in the table for the "small" and the "large" uniqueness probe. */
  smallUsers: number;
  largeUsers: number;
  /** Set: run every scenario again on a fresh database of this PostgreSQL server. */
  databaseUrl: string | undefined;
}

export function whole(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number): number {
  const text = env[name]?.trim();
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min) {
    throw new Error(`${name} must be a whole number of at least ${min} (got "${text}")`);
  }
  return value;
}

function scenarioGroups(text: string | undefined): Set<ScenarioGroup> {
  if (text === undefined || text.trim() === '' || text.trim() === 'all') return new Set(SCENARIO_GROUPS);
  const names = text.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !KNOWN_GROUPS.includes(name));
  if (unknown.length > 0) {
    throw new Error(
      `unknown scenario group ${unknown.join(', ')}: choose from ${KNOWN_GROUPS.join(', ')}, all`,
    );
  }
  return new Set(names as ScenarioGroup[]);
}

export function loadSettings(env: NodeJS.ProcessEnv, argv: readonly string[] = []): Settings {
  const smallUsers = whole(env, 'BENCH_SMALL_USERS', 1_000, 1);
  const flag = (name: string) => argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
  for (const arg of argv) {
    if (!/^--(embedded|postgres|scenarios=.*|json=.*)$/.test(arg)) {
      throw new Error(`unknown argument ${arg}: use --embedded, --postgres, --scenarios=a,b, --json=FILE`);
    }
  }
  const databaseUrl = env.DATABASE_URL?.trim() || undefined;
  const backends = new Set<'pglite' | 'postgres'>();
  if (argv.includes('--embedded')) backends.add('pglite');
  if (argv.includes('--postgres')) {
    if (databaseUrl === undefined) throw new Error('--postgres needs DATABASE_URL');
    backends.add('postgres');
  }
  if (backends.size === 0) {
    backends.add('pglite');
    if (databaseUrl !== undefined) backends.add('postgres');
  }
  const settings: Settings = {
    seconds: whole(env, 'BENCH_SECONDS', 5, 1),
    warmupSeconds: whole(env, 'BENCH_WARMUP_SECONDS', 5, 0),
    hashWarmupSeconds: whole(env, 'BENCH_HASH_WARMUP_SECONDS', 20, 0),
    rounds: whole(env, env.BENCH_ROUNDS === undefined ? 'BENCH_HASH_ROUNDS' : 'BENCH_ROUNDS', 5, 5),
    firstStartRounds: whole(env, 'BENCH_FIRST_START_ROUNDS', 5, 1),
    connections: whole(env, 'BENCH_CONNECTIONS', 10, 1),
    probeRate: whole(env, 'BENCH_PROBE_RATE', 200, 1),
    hashInFlight: whole(env, 'BENCH_HASH_IN_FLIGHT', availableParallelism(), 1),
    scenarios: scenarioGroups(flag('scenarios') ?? env.BENCH_SCENARIOS),
    backends,
    jsonPath: flag('json') ?? env.BENCH_JSON ?? 'dist-bench/bench-result.json',
    smallUsers,
    largeUsers: whole(env, 'BENCH_LARGE_USERS', 50_000, smallUsers + 1),
    databaseUrl,
  };
  return settings;
}
