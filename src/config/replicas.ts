import { ConfigError, type Env, integer, raw } from './env.js';

/** Read replicas of the PostgreSQL primary: DATABASE_REPLICA_URLS, REPLICA_MAX_LAG_MS. */
export interface ReplicasConfig {
  /** postgres:// URLs of hot standbys streaming from DATABASE_URL; empty = every read on the primary. */
  urls: string[];
  /** A standby further behind the primary than this is skipped until it catches up. */
  maxLagMs: number;
}

const POSTGRES_URL = /^postgres(ql)?:\/\/[^,\s]+$/;

/**
 * Replicas need a primary: set without DATABASE_URL (the embedded database has no standby to read from) the
 * process refuses to start instead of silently reading everything from one place.
 */
export function parseReplicas(env: Env, databaseUrl: string | undefined): ReplicasConfig {
  const maxLagMs = integer(env, 'REPLICA_MAX_LAG_MS', 1_000, 1, 600_000);
  const value = raw(env, 'DATABASE_REPLICA_URLS');
  if (value === undefined) return { urls: [], maxLagMs };
  if (databaseUrl === undefined) {
    throw new ConfigError(
      'DATABASE_REPLICA_URLS',
      'needs DATABASE_URL: replicas stream from a PostgreSQL primary (the embedded database has none)',
    );
  }
  const urls = value
    .split(',')
    .map((url) => url.trim())
    .filter((url) => url !== '');
  // The values hold passwords: the error names the position of the bad one, never echoes it.
  const bad = urls.findIndex((url) => !POSTGRES_URL.test(url) || !parsable(url));
  if (urls.length === 0 || bad !== -1) {
    throw new ConfigError(
      'DATABASE_REPLICA_URLS',
      `must be a comma-separated list of postgres:// URLs (entry ${bad === -1 ? 1 : bad + 1} is not one)`,
    );
  }
  return { urls: [...new Set(urls)], maxLagMs };
}

function parsable(url: string): boolean {
  try {
    return new URL(url).hostname !== '';
  } catch {
    return false;
  }
}
