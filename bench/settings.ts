/** How long and how hard each scenario runs; from BENCH_* variables so a quick or a longer run needs no edit. */
export interface Settings {
  seconds: number;
  warmupSeconds: number;
  connections: number;
  /** The healthz probe that runs beside the login load: one connection at this fixed rate. */
  probeRate: number;
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

export function loadSettings(env: NodeJS.ProcessEnv): Settings {
  const smallUsers = whole(env, 'BENCH_SMALL_USERS', 1_000, 1);
  const settings: Settings = {
    seconds: whole(env, 'BENCH_SECONDS', 5, 1),
    warmupSeconds: whole(env, 'BENCH_WARMUP_SECONDS', 1, 0),
    connections: whole(env, 'BENCH_CONNECTIONS', 10, 1),
    probeRate: whole(env, 'BENCH_PROBE_RATE', 50, 1),
    smallUsers,
    largeUsers: whole(env, 'BENCH_LARGE_USERS', 50_000, smallUsers + 1),
    databaseUrl: env.DATABASE_URL?.trim() || undefined,
  };
  return settings;
}
