import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { DatabaseTimeouts } from '../config/database.js';
import type { Tracing } from '../lib/tracing.js';
import { type PreparedStatements, PreparingPool } from './prepared-statements.js';
import type { Database } from './schema.js';
import { tracedPool } from './statement-spans.js';

/**
 * How much longer than the server's statement_timeout the client waits for an answer. The server cancels a
 * slow statement itself (a clean 57014); the client-side bound is for a server that does not answer at all
 * (frozen, or the network to it cut), where only the client can give up.
 */
const CLIENT_GRACE_MS = 1_000;

/**
 * A node-postgres pool with every wait bounded and its connection errors absorbed: the primary's, and each
 * read replica's (db/replicas.ts).
 */
export function boundedServerPool(url: string, max: number, timeouts: DatabaseTimeouts): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    // Bounds both the wait for a free client of a full pool and the connection handshake.
    connectionTimeoutMillis: timeouts.acquireTimeoutMs,
    statement_timeout: timeouts.statementTimeoutMs,
    lock_timeout: timeouts.lockTimeoutMs,
    idle_in_transaction_session_timeout: timeouts.idleInTransactionTimeoutMs,
    query_timeout: timeouts.statementTimeoutMs + CLIENT_GRACE_MS,
  });
  // An idle client losing its connection (server restart) must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  // Nor a checked-out one between two statements (a transaction awaiting the service, say): pg emits its
  // 'error' on the client itself then, and an unheard 'error' is an uncaught exception. The statement in
  // flight, or the next, fails on its own (a 503), and the pool drops the client when it comes back.
  pool.on('connect', (client) => {
    client.on('error', () => {});
  });
  return pool;
}

/**
 * Kysely over a server pool, its named statements those of `statements` (the handle's). Named statements are
 * per connection, so a replica's pool prepares its own on first use of each of its connections, exactly as
 * the primary's does. With `tracing` on, each statement is a span (db/statement-spans.ts).
 */
export function serverKysely(
  pool: pg.Pool,
  statements: PreparedStatements,
  tracing?: Tracing,
): Kysely<Database> {
  return new Kysely<Database>({
    // Always through PreparingPool, named statements or not: it also retires a connection whose answer was lost.
    dialect: new PostgresDialect({
      pool: tracedPool(new PreparingPool(pool, statements), tracing, 'postgresql'),
    }),
  });
}
