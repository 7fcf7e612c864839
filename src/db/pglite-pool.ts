import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import type { EmbeddedResult, PGliteThread } from './pglite-thread.js';
import { PreparedStatements } from './prepared-statements.js';

/** Waiting for the embedded connection took too long: classified as a connection error (503) by `db/errors.ts`. */
export class PoolTimeoutError extends Error {
  readonly code = 'POOL_ACQUIRE_TIMEOUT';

  constructor(timeoutMs: number) {
    super(`timeout exceeded when trying to connect (waited ${timeoutMs} ms for the embedded database)`);
    this.name = 'PoolTimeoutError';
  }
}

/** What Kysely's Postgres driver sends to open a transaction (`begin`, or `start transaction …` with settings). */
const OPENS_TRANSACTION = /^\s*(?:begin|start\s+transaction)\b/i;

/** A caller in the queue for the connection; `start` runs, synchronously, when its turn comes. */
interface Waiter {
  start(): void;
  timer: NodeJS.Timeout;
}

/**
 * PGlite is one embedded connection. This adapter gives it the shape of a node-postgres pool so that Kysely's
 * own Postgres driver (and so the same SQL, transactions included) runs on it unchanged.
 *
 * Single statements are pipelined: each is sent to the database's thread as soon as its turn in the queue
 * comes, without waiting for the answers of those sent before it, and the thread runs them one after another
 * in the order they came (pglite-worker.mjs). The thread then goes from one statement to the next without
 * sleeping and waking for each, and the event loop serves other requests meanwhile: on a host where waking
 * a thread is dear, a round trip per statement left a core idle (docs/performance.md).
 *
 * A transaction (the client's first statement opens one) or a session (`acquire`) holds the connection
 * exclusively until it is released: everything sent before it has been sent already, so it runs first, and
 * nothing queued behind it is sent until it ends, so no other request's statement lands inside it.
 */
export class PGlitePool implements PostgresPool {
  /** A transaction or a session holds the connection; the queue waits for it. */
  #held = false;
  readonly #queue: Waiter[] = [];

  /**
   * @param acquireTimeoutMs how long a caller waits for its turn. The bound that matters most is a nested use:
   * code inside a transaction that queries through the pool instead of the transaction waits for a connection
   * its own transaction holds, which would hang for ever; it fails with PoolTimeoutError (a 503).
   * @param statements the handle's named statements (db/prepared-statements.ts): the hot queries run under
   * their names, planned once instead of on every call (pglite-worker.mjs), unless they are disabled.
   */
  constructor(
    readonly pglite: PGliteThread,
    private readonly acquireTimeoutMs = 5_000,
    private readonly statements = new PreparedStatements(),
  ) {}

  /**
   * Runs `start` when it is this caller's turn, and resolves to what it returned: at once when nothing holds
   * the connection and nobody waits, else after everyone ahead in the queue. `start` runs synchronously with
   * the turn, so the order in which statements reach the thread is the order of the queue.
   */
  #whenFree<T>(start: () => T): Promise<Awaited<T>> {
    if (!this.#held && this.#queue.length === 0) return Promise.resolve(start());
    return new Promise<Awaited<T>>((resolve, reject) => {
      const waiter: Waiter = {
        start: () => {
          clearTimeout(waiter.timer);
          resolve(start() as Awaited<T>);
        },
        timer: setTimeout(() => {
          this.#queue.splice(this.#queue.indexOf(waiter), 1);
          reject(new PoolTimeoutError(this.acquireTimeoutMs));
        }, this.acquireTimeoutMs),
      };
      this.#queue.push(waiter);
    });
  }

  /** Hands the connection on: statements go out at once and in order; a holder stops the queue again. */
  #next(): void {
    while (!this.#held) {
      const waiter = this.#queue.shift();
      if (!waiter) return;
      waiter.start();
    }
  }

  /** Waits for the connection, then holds it exclusively until the returned release function is called. */
  acquire(): Promise<() => void> {
    return this.#whenFree(() => {
      this.#held = true;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        this.#held = false;
        this.#next();
      };
    });
  }

  /** The one connection as pool gauges see it: busy (held, or statements in flight) or not, and the queue. */
  stats(): { total: number; inUse: number; waiting: number } {
    const busy = this.#held || this.pglite.inFlight > 0;
    return { total: 1, inUse: busy ? 1 : 0, waiting: this.#queue.length };
  }

  async connect(): Promise<PostgresPoolClient> {
    let release: (() => void) | undefined;
    const send = <R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<EmbeddedResult<R>> => {
      const marked = this.statements.marked(sql);
      const run = () => this.pglite.query<R>(marked?.text ?? sql, [...parameters], marked?.name);
      return release ? run() : this.#whenFree(run);
    };
    const client = {
      query: async <R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> => {
        if (!release && OPENS_TRANSACTION.test(sql)) release = await this.acquire();
        const result = await send<R>(sql, parameters);
        return {
          command: (result.command ?? 'SELECT') as PostgresQueryResult<R>['command'],
          rowCount: result.affectedRows ?? result.rows.length,
          rows: result.rows,
        };
      },
      release: () => {
        release?.();
        release = undefined;
      },
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
