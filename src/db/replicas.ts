import pg from 'pg';
import type { DatabaseTimeouts } from '../config/database.js';
import type { PreparedStatements } from './prepared-statements.js';
import { boundedServerPool, serverKysely } from './server-pool.js';
import type { Executor } from './transaction.js';

/**
 * What the last health check found: `up` (reads go there), `lagging` (further behind the primary than
 * REPLICA_MAX_LAG_MS, or its lag unknown), `down` (no answer within the check's bound, or a request met a
 * lost connection), `not_standby` (it answers but is not in recovery: promoted, or a primary by mistake).
 */
export const REPLICA_STATES = ['up', 'lagging', 'down', 'not_standby'] as const;
export type ReplicaState = (typeof REPLICA_STATES)[number];

export interface ReplicaStatus {
  /** host:port/database: never the user or the password of the URL. */
  name: string;
  state: ReplicaState;
  /** An upper bound on how far behind the primary it was at its last check; undefined when unknown. */
  lagMs: number | undefined;
}

/** A standby reads can be sent to. */
export interface Replica {
  readonly name: string;
  readonly db: Executor;
}

interface Standby extends Replica {
  readonly pool: pg.Pool;
  /** One connection of its own for the checks: a pool busy with requests never delays them. */
  readonly checks: pg.Pool;
  state: ReplicaState;
  lagMs: number | undefined;
}

/** Where the primary's WAL stood at a moment: what a standby's replay position is compared with. */
interface WalSample {
  at: number;
  lsn: bigint;
}

export interface ReplicaOptions {
  /** Connections per replica pool (DATABASE_POOL_MAX, as for the primary). */
  max: number;
  timeouts: DatabaseTimeouts;
  /** The handle's named statements, shared with the primary's pool. */
  statements: PreparedStatements;
  maxLagMs: number;
}

/** How often every standby (and the primary's WAL position) is checked, in the background. */
export const CHECK_INTERVAL_MS = 1_000;
/** Each check's connection and statement are bounded by this: a frozen server is `down` within it. */
const CHECK_TIMEOUT_MS = 1_000;

/** `16/B374D848` → its 64-bit position. */
function parseLsn(text: string): bigint {
  const [high = '0', low = '0'] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

function checkPool(url: string): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: 1,
    connectionTimeoutMillis: CHECK_TIMEOUT_MS,
    query_timeout: CHECK_TIMEOUT_MS,
    statement_timeout: CHECK_TIMEOUT_MS,
  });
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

/** The metrics label of a URL: where it points, without credentials. */
function replicaName(url: string, taken: ReadonlySet<string>): string {
  const parsed = new URL(url);
  const base = `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname || '/'}`;
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base}#${n}`;
  return name;
}

/**
 * The hot standbys of the primary and their health. Lag is measured by WAL position, not by
 * `now() - pg_last_xact_replay_timestamp()`: that grows without bound on an idle primary (nothing to replay
 * is not being behind). Every second the primary's `pg_current_wal_lsn()` is sampled, then each standby's
 * `pg_last_wal_replay_lsn()`: a standby that has replayed past the sample taken at time T holds everything
 * committed before T, so `now - T` for the newest such sample bounds its lag from above. All of it runs on a
 * timer with bounded connections; a request never waits for a check.
 */
export class ReplicaSet {
  readonly #standbys: Standby[];
  readonly #primaryChecks: pg.Pool;
  readonly #samples: WalSample[] = [];
  readonly #maxLagMs: number;
  #next = 0;
  #timer: NodeJS.Timeout | undefined;
  #checking: Promise<void> | undefined;
  #closed = false;

  private constructor(primaryUrl: string, urls: readonly string[], options: ReplicaOptions) {
    this.#maxLagMs = options.maxLagMs;
    this.#primaryChecks = checkPool(primaryUrl);
    const names = new Set<string>();
    this.#standbys = urls.map((url) => {
      const name = replicaName(url, names);
      names.add(name);
      const pool = boundedServerPool(url, options.max, options.timeouts);
      const db = serverKysely(pool, options.statements);
      return { name, db, pool, checks: checkPool(url), state: 'down', lagMs: undefined };
    });
  }

  /** Opens a pool per standby, checks them all once (bounded), then keeps checking in the background. */
  static async open(
    primaryUrl: string,
    urls: readonly string[],
    options: ReplicaOptions,
  ): Promise<ReplicaSet> {
    const set = new ReplicaSet(primaryUrl, urls, options);
    await set.check();
    set.#schedule();
    return set;
  }

  /**
   * How stale a standby chosen now can be at most: it was within REPLICA_MAX_LAG_MS at a check that ended at
   * most one interval plus one check's bound ago. A write older than this is on every standby reads go to.
   */
  get stalenessBoundMs(): number {
    return this.#maxLagMs + CHECK_INTERVAL_MS + CHECK_TIMEOUT_MS;
  }

  /** The next healthy standby, in turn; undefined when none is (reads then go to the primary). */
  pick(): Replica | undefined {
    const count = this.#standbys.length;
    for (let i = 0; i < count; i++) {
      const standby = this.#standbys[(this.#next + i) % count] as Standby;
      if (standby.state === 'up') {
        this.#next = (this.#next + i + 1) % count;
        return standby;
      }
    }
    return undefined;
  }

  /** A request lost its connection to this standby: skipped at once, until a check finds it answering. */
  reportFailure(replica: Replica): void {
    const standby = this.#standbys.find((candidate) => candidate === replica);
    if (standby) standby.state = 'down';
  }

  statuses(): ReplicaStatus[] {
    return this.#standbys.map(({ name, state, lagMs }) => ({ name, state, lagMs }));
  }

  /** One round of checks: the primary's WAL position, then every standby's, at once. */
  check(): Promise<void> {
    this.#checking ??= this.#checkAll().finally(() => {
      this.#checking = undefined;
    });
    return this.#checking;
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    await this.#checking;
    await Promise.all([
      this.#primaryChecks.end(),
      ...this.#standbys.flatMap((standby) => [standby.checks.end(), standby.db.destroy()]),
    ]);
  }

  #schedule(): void {
    if (this.#closed) return;
    this.#timer = setTimeout(() => {
      void this.check().finally(() => this.#schedule());
    }, CHECK_INTERVAL_MS);
    this.#timer.unref();
  }

  async #checkAll(): Promise<void> {
    const at = Date.now();
    try {
      const { rows } = await this.#primaryChecks.query<{ lsn: string }>(
        'SELECT pg_current_wal_lsn()::text AS lsn',
      );
      if (rows[0]) this.#samples.push({ at, lsn: parseLsn(rows[0].lsn) });
    } catch {
      // The primary did not answer: standbys are judged against its last known positions, so the lag they
      // are given grows until they are skipped. Nothing proves them fresh meanwhile.
    }
    this.#forgetOldSamples(Date.now());
    await Promise.all(this.#standbys.map((standby) => this.#checkStandby(standby)));
  }

  async #checkStandby(standby: Standby): Promise<void> {
    try {
      const { rows } = await standby.checks.query<{ standby: boolean; replayed: string | null }>(
        'SELECT pg_is_in_recovery() AS standby, pg_last_wal_replay_lsn()::text AS replayed',
      );
      const row = rows[0];
      if (!row?.standby) {
        standby.state = 'not_standby';
        standby.lagMs = undefined;
        return;
      }
      const lag = row.replayed === null ? undefined : this.#lagOf(parseLsn(row.replayed), Date.now());
      standby.lagMs = lag;
      standby.state = lag !== undefined && lag <= this.#maxLagMs ? 'up' : 'lagging';
    } catch {
      standby.state = 'down';
      standby.lagMs = undefined;
    }
  }

  /** `now` minus the time of the newest primary sample the standby has replayed past. */
  #lagOf(replayed: bigint, now: number): number | undefined {
    for (let i = this.#samples.length - 1; i >= 0; i--) {
      const sample = this.#samples[i] as WalSample;
      if (sample.lsn <= replayed) return now - sample.at;
    }
    // Behind every sample kept: at least as far behind as the oldest, which is past the limit.
    const oldest = this.#samples[0];
    return oldest === undefined ? undefined : now - oldest.at;
  }

  /** Keeps what can still decide whether a standby is within the limit (and always the newest sample). */
  #forgetOldSamples(now: number): void {
    const horizon = now - this.#maxLagMs - 5 * CHECK_INTERVAL_MS;
    while (this.#samples.length > 1 && (this.#samples[0] as WalSample).at < horizon) this.#samples.shift();
  }
}
