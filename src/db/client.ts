import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { DatabaseTimeouts } from '../config/database.js';
import type { Tracing } from '../lib/tracing.js';
import { tighten } from './data-dir.js';
import { lockDataDir } from './data-dir-lock.js';
import { type Listen, type Listening, ServerNotifications } from './notifications.js';
import { PGlitePool } from './pglite-pool.js';
import { PGliteThread } from './pglite-thread.js';
import { PreparedStatements } from './prepared-statements.js';
import { ReplicaSet } from './replicas.js';
import type { Database } from './schema.js';
import { boundedServerPool, serverKysely } from './server-pool.js';
import { tracedPool } from './statement-spans.js';
import { type OutcomeCheck, PrimaryOutcomeCheck } from './write-outcome.js';

/** A raw session on one connection, for what the query builder is not for: migration scripts and locks. */
export interface RawSession {
  /** Runs a script of one or more statements without parameters. */
  exec(script: string): Promise<void>;
  query<R = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<R[]>;
}

/** What the pool gauges of /metrics read, at scrape time. */
export interface PoolStats {
  /** Connections open (busy or idle). */
  total: number;
  /** Connections handed out to a query or transaction. */
  inUse: number;
  /** Callers waiting for a connection. */
  waiting: number;
}

export interface DatabaseHandle {
  kind: 'embedded' | 'postgres';
  db: Kysely<Database>;
  /** The hot queries' named statements on this database, by the SQL Precompiled marked (prepared-statements.ts). */
  statements: PreparedStatements;
  poolStats(): PoolStats;
  /** NOTIFY channels, on PostgreSQL on a connection of their own (notifications.ts). */
  listen: Listen;
  withSession<T>(work: (session: RawSession) => Promise<T>): Promise<T>;
  /** The read replicas of a PostgreSQL primary (DATABASE_REPLICA_URLS); never on the embedded database. */
  replicas?: ReplicaSet;
  /**
   * Whether a write whose answer was lost committed, asked of the primary (db/write-outcome.ts); never on
   * the embedded database, whose one in-process connection cannot lose an answer.
   */
  outcomes?: OutcomeCheck;
  close(): Promise<void>;
}

/** The server's timestamps come back as Date on both drivers; bigint counts as JS numbers. */
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
/** A `date` is a calendar day, not an instant: `YYYY-MM-DD` as is (a Date would shift it by the time zone). */
pg.types.setTypeParser(pg.types.builtins.DATE, (value) => value);

export interface DatabaseOptions {
  /** postgres:// URL; undefined = embedded PGlite. */
  url: string | undefined;
  /** Where PGlite keeps its files; `memory://` for a throwaway in-memory database. */
  embeddedDir: string;
  /**
   * A migrated data directory (db/pglite-template.ts) that a new embedded database starts as, instead of
   * running initdb; a directory that already holds a database opens as it is.
   */
  embeddedTemplate?: string;
  poolMax?: number;
  /** Bounds on every wait (config/database.ts); the defaults there when absent. */
  timeouts?: Partial<DatabaseTimeouts>;
  /**
   * Run the hot queries as named statements (db/prepared-statements.ts), on a PostgreSQL server and on the
   * embedded PGlite; default on. Off for a pooler that cannot keep them (PgBouncer before 1.21 in
   * transaction mode).
   */
  preparedStatements?: boolean;
  /** Hot standbys of `url` that serve the routed reads (db/read-routing.ts); none by default. */
  replicaUrls?: readonly string[];
  /** A standby further behind than this is skipped (REPLICA_MAX_LAG_MS). */
  replicaMaxLagMs?: number;
  /** A span per statement of the primary's (db/statement-spans.ts); none when absent or off. */
  tracing?: Tracing | undefined;
}

const DEFAULT_TIMEOUTS: DatabaseTimeouts = {
  acquireTimeoutMs: 5_000,
  statementTimeoutMs: 10_000,
  lockTimeoutMs: 5_000,
  idleInTransactionTimeoutMs: 30_000,
  outcomeCheckTimeoutMs: 3_000,
};

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  const timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  return options.url === undefined
    ? openEmbedded(
        options.embeddedDir,
        options.embeddedTemplate,
        timeouts,
        options.preparedStatements ?? true,
        options.tracing,
      )
    : openServer(
        options.url,
        options.poolMax ?? 10,
        timeouts,
        options.preparedStatements ?? true,
        options.replicaUrls ?? [],
        options.replicaMaxLagMs ?? 1_000,
        options.tracing,
      );
}

async function openEmbedded(
  dir: string,
  template: string | undefined,
  timeouts: DatabaseTimeouts,
  preparedStatements: boolean,
  tracing: Tracing | undefined,
): Promise<DatabaseHandle> {
  let unlock = async () => {};
  if (!dir.startsWith('memory://')) {
    await mkdir(path.dirname(dir), { recursive: true });
    unlock = await lockDataDir(`${dir}.lock`);
  }
  let pglite: PGliteThread;
  try {
    // On a thread of its own, loaded only for the embedded database: a service on PostgreSQL never holds
    // PGlite's module in memory.
    pglite = await PGliteThread.open(dir, template);
    if (!dir.startsWith('memory://')) await tighten(dir);
  } catch (error) {
    await unlock();
    throw error;
  }
  // A server-side statement timeout cannot interrupt PGlite; the wait for its one connection is bounded.
  const statements = new PreparedStatements(preparedStatements);
  const pool = new PGlitePool(pglite, timeouts.acquireTimeoutMs, statements);
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: tracedPool(pool, tracing, 'pglite') }),
  });
  return {
    kind: 'embedded',
    db,
    statements,
    poolStats: () => pool.stats(),
    listen: (channel, onNotify) => {
      const listening: { live: boolean } = { live: false };
      // No other process opens this database: its notifications come from this one, and only fail to
      // arrive when the thread is gone, and with it the database. The LISTEN takes the one connection like
      // any statement: sent beside a transaction, it would be part of it (and undone by its rollback).
      (async () => {
        const release = await pool.acquire();
        try {
          await pglite.listen(channel, onNotify);
        } finally {
          release();
        }
      })().then(
        () => {
          listening.live = true;
          // Whatever was announced before the LISTEN was in place.
          onNotify();
        },
        // The thread is gone: not live, and every query fails as a lost connection anyway.
        () => {},
      );
      return listening satisfies Listening;
    },
    async withSession(work) {
      const release = await pool.acquire();
      try {
        return await work({
          exec: async (script) => {
            await pglite.exec(script);
          },
          query: async <R>(sql: string, params: unknown[] = []) => (await pglite.query<R>(sql, params)).rows,
        });
      } finally {
        release();
      }
    },
    close: async () => {
      await db.destroy();
      await unlock();
    },
  };
}

async function openServer(
  url: string,
  max: number,
  timeouts: DatabaseTimeouts,
  preparedStatements: boolean,
  replicaUrls: readonly string[],
  replicaMaxLagMs: number,
  tracing: Tracing | undefined,
): Promise<DatabaseHandle> {
  const pool = boundedServerPool(url, max, timeouts);
  // One set of names for the primary's pool and every replica's.
  const statements = new PreparedStatements(preparedStatements);
  const db = serverKysely(pool, statements, tracing);
  const replicas =
    replicaUrls.length === 0
      ? undefined
      : await ReplicaSet.open(url, replicaUrls, {
          max,
          timeouts,
          statements,
          maxLagMs: replicaMaxLagMs,
        });
  const notifications = new ServerNotifications(url, timeouts.acquireTimeoutMs);
  return {
    kind: 'postgres',
    db,
    statements,
    replicas,
    listen: notifications.listen,
    outcomes: new PrimaryOutcomeCheck(url, timeouts.outcomeCheckTimeoutMs),
    poolStats: () => ({
      total: pool.totalCount,
      inUse: pool.totalCount - pool.idleCount,
      waiting: pool.waitingCount,
    }),
    // Migrations and their advisory lock may rightly take longer than any request: they run on a client of
    // their own, outside the pool and its statement timeouts (the handshake is still bounded).
    async withSession(work) {
      const client = new pg.Client({
        connectionString: url,
        connectionTimeoutMillis: timeouts.acquireTimeoutMs,
      });
      client.on('error', () => {});
      await client.connect();
      try {
        return await work({
          exec: async (script) => {
            await client.query(script);
          },
          query: async <R>(sql: string, params: unknown[] = []) =>
            (await client.query(sql, params)).rows as R[],
        });
      } finally {
        await client.end();
      }
    },
    close: async () => {
      await notifications.close();
      await replicas?.close();
      await db.destroy();
    },
  };
}
