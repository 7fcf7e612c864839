import { type Env, integer } from './env.js';

/**
 * Bounds on every wait for the database, so a frozen or overloaded server costs a request a 503 within a
 * known time instead of holding it (and its connection) for as long as the server stays frozen.
 */
export interface DatabaseTimeouts {
  /** Waiting for a pooled connection (pool exhausted, server not answering the handshake, or PGlite busy). */
  acquireTimeoutMs: number;
  /** One statement on the server (PostgreSQL's statement_timeout); the client gives up a little later. */
  statementTimeoutMs: number;
  /** Waiting for a row or table lock (PostgreSQL's lock_timeout). */
  lockTimeoutMs: number;
  /** A transaction left idle by a client (PostgreSQL's idle_in_transaction_session_timeout). */
  idleInTransactionTimeoutMs: number;
  /**
   * The whole look, on a fresh connection, at whether a write whose answer was lost committed
   * (db/write-outcome.ts); past it the write's outcome is unknown (503).
   */
  outcomeCheckTimeoutMs: number;
}

export function parseDatabaseTimeouts(env: Env): DatabaseTimeouts {
  return {
    acquireTimeoutMs: integer(env, 'DATABASE_ACQUIRE_TIMEOUT_MS', 5_000, 1, 600_000),
    statementTimeoutMs: integer(env, 'DATABASE_STATEMENT_TIMEOUT_MS', 10_000, 1, 600_000),
    lockTimeoutMs: integer(env, 'DATABASE_LOCK_TIMEOUT_MS', 5_000, 1, 600_000),
    idleInTransactionTimeoutMs: integer(env, 'DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS', 30_000, 1, 600_000),
    outcomeCheckTimeoutMs: integer(env, 'DATABASE_OUTCOME_CHECK_TIMEOUT_MS', 3_000, 1, 600_000),
  };
}
