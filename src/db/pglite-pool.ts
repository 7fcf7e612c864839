import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import type { PGliteThread } from './pglite-thread.js';
import { preparedStatementName } from './prepared-statements.js';

/** Waiting for the embedded connection took too long: classified as a connection error (503) by `db/errors.ts`. */
export class PoolTimeoutError extends Error {
  readonly code = 'POOL_ACQUIRE_TIMEOUT';

  constructor(timeoutMs: number) {
    super(`timeout exceeded when trying to connect (waited ${timeoutMs} ms for the embedded database)`);
    this.name = 'PoolTimeoutError';
  }
}

/**
 * PGlite is one embedded connection. This adapter gives it the shape of a node-postgres pool so that Kysely's
 * own Postgres driver (and so the same SQL, transactions included) runs on it unchanged. Each `connect()`
 * holds the connection exclusively until `release()`, as a pool of size one would: a transaction on it can
 * never interleave with another request's statements.
 */
export class PGlitePool implements PostgresPool {
  #tail: Promise<void> = Promise.resolve();
  #waiting = 0;
  #inUse = 0;

  /**
   * @param acquireTimeoutMs how long a caller waits for the connection. The bound that matters most is a
   * nested use: code inside a transaction that queries through the pool instead of the transaction waits for
   * a connection its own transaction holds, which would hang for ever; it fails with PoolTimeoutError (a 503).
   * @param preparedStatements run the hot queries (db/prepared-statements.ts) as named statements: planned
   * once instead of on every call (pglite-worker.mjs).
   */
  constructor(
    readonly pglite: PGliteThread,
    private readonly acquireTimeoutMs = 5_000,
    private readonly preparedStatements = true,
  ) {}

  /** Waits for the connection, then holds it until the returned release function is called. */
  async acquire(): Promise<() => void> {
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const previous = this.#tail;
    this.#tail = previous.then(() => held);
    let timer: NodeJS.Timeout | undefined;
    this.#waiting += 1;
    try {
      await Promise.race([
        previous,
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new PoolTimeoutError(this.acquireTimeoutMs)),
            this.acquireTimeoutMs,
          );
        }),
      ]);
    } catch (error) {
      // Our place in the queue passes on at once when our turn comes: the callers behind us are not held.
      void previous.then(release);
      throw error;
    } finally {
      clearTimeout(timer);
      this.#waiting -= 1;
    }
    this.#inUse += 1;
    let released = false;
    return () => {
      if (!released) {
        released = true;
        this.#inUse -= 1;
        release();
      }
    };
  }

  /** The one connection as pool gauges see it: busy or not, and how many wait for it. */
  stats(): { total: number; inUse: number; waiting: number } {
    return { total: 1, inUse: this.#inUse, waiting: this.#waiting };
  }

  async connect(): Promise<PostgresPoolClient> {
    const release = await this.acquire();
    const pglite = this.pglite;
    const named = this.preparedStatements ? preparedStatementName : () => undefined;
    const client = {
      async query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> {
        const result = await pglite.query<R>(sql, [...parameters], named(sql));
        return {
          command: (result.command ?? 'SELECT') as PostgresQueryResult<R>['command'],
          rowCount: result.affectedRows ?? result.rows.length,
          rows: result.rows,
        };
      },
      release,
    };
    return client as PostgresPoolClient;
  }

  async end(): Promise<void> {
    const release = await this.acquire();
    try {
      await this.pglite.close();
    } finally {
      release();
    }
  }
}
