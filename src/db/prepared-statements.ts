import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import type pg from 'pg';
import { isLostAnswer, markedLostAnswer } from './errors.js';

/**
 * Named (server-side prepared) statements for the hottest queries on a PostgreSQL server, and (through the
 * same registry, db/pglite-pool.ts) on the embedded PGlite.
 *
 * An unnamed statement is parsed, analysed and planned by the server on every call; a named one once per
 * connection, and each later call sends only its values. For the short indexed queries every request makes
 * (the uniqueness check, the token lookup, the login's account read and token write) that is most of the
 * server's work, and on a small machine the server's CPU is taken from the service's (docs/performance.md).
 *
 * Which SQL is prepared is decided in one place: `Precompiled` (db/precompiled.ts) registers the SQL it
 * compiles, the SQL never changes, and the number of such statements is fixed by the code. Everything else
 * runs unnamed, as before.
 */
const namesBySql = new Map<string, string>();

/** The name `sql` runs under as a named statement, if it was registered (also read by the embedded pool). */
export function preparedStatementName(sql: string): string | undefined {
  return namesBySql.get(sql);
}

/** Marks `sql` as worth preparing on each connection that runs it. */
export function registerPreparedStatement(sql: string): void {
  if (!namesBySql.has(sql)) namesBySql.set(sql, `accounts_${namesBySql.size + 1}`);
}

/**
 * "cached plan must not change result type": a prepared `SELECT users.*` after a migration added a column
 * (another instance of a rolling deploy migrated the schema under this one).
 */
const RESULT_TYPE_CHANGED = '0A000';

function isResultTypeChange(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === RESULT_TYPE_CHANGED;
}

/**
 * A Kysely pool over pg's that runs registered SQL as named statements. A statement whose result type was
 * changed by a migration is prepared again under a new name, once, instead of failing until a restart.
 */
export class PreparingPool implements PostgresPool {
  /** The generation of each statement's name; raised when a schema change invalidated it. */
  private readonly generations = new Map<string, number>();
  /**
   * One wrapper per pooled connection, made once and handed out on every checkout. Kysely remembers each
   * client object it is given (a PostgresConnection of its own, in a WeakMap and a WeakSet): a fresh wrapper
   * per checkout would cost those allocations on every query, and the weak tables' entries live in the old
   * generation until a full collection, which made the heap (and the process's peak RSS) grow under load.
   */
  private readonly wrappers = new WeakMap<pg.PoolClient, PreparingClient>();

  constructor(
    private readonly pool: pg.Pool,
    /** False for a pooler that cannot keep named statements: everything runs unnamed. */
    private readonly prepare = true,
  ) {}

  async connect(): Promise<PostgresPoolClient> {
    const client = await this.pool.connect();
    let wrapper = this.wrappers.get(client);
    if (wrapper === undefined) {
      wrapper = new PreparingClient(client, this.generations, this.prepare);
      this.wrappers.set(client, wrapper);
    }
    return wrapper;
  }

  end(): Promise<void> {
    return this.pool.end();
  }
}

/**
 * A pooled connection. When a statement's answer is lost (the client gave up waiting, or the socket broke),
 * the statement may still be on its way to the server or running there: the connection is never used again
 * (a later statement would queue behind the lost one), and every error that comes of it names its server
 * process, so that db/write-outcome.ts can end that process before it looks for what was committed.
 */
class PreparingClient implements PostgresPoolClient {
  #answerLost = false;

  constructor(
    private readonly client: pg.PoolClient,
    private readonly generations: Map<string, number>,
    private readonly prepare: boolean,
  ) {}

  query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
  query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  query<R>(
    sqlOrCursor: string | PostgresCursor<R>,
    parameters?: ReadonlyArray<unknown>,
  ): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    // Kysely passes a cursor only to stream, which needs a `cursor` in the dialect's config: we configure none.
    if (typeof sqlOrCursor !== 'string') throw new Error('streaming queries are not configured');
    const values = parameters ? [...parameters] : [];
    const name = this.prepare ? namesBySql.get(sqlOrCursor) : undefined;
    if (name === undefined) return this.run<R>({ text: sqlOrCursor, values });
    return this.runNamed<R>(name, sqlOrCursor, values);
  }

  release(): void {
    // `true` destroys the connection instead of pooling it again.
    this.client.release(this.#answerLost);
  }

  /** The server process of this connection (from the handshake's BackendKeyData). */
  private get pid(): number | undefined {
    const pid = (this.client as { processID?: unknown }).processID;
    return typeof pid === 'number' ? pid : undefined;
  }

  private async runNamed<R>(name: string, text: string, values: unknown[]): Promise<PostgresQueryResult<R>> {
    const generation = this.generations.get(name) ?? 0;
    try {
      return await this.run<R>({ name: `${name}_${generation}`, text, values });
    } catch (error) {
      if (!isResultTypeChange(error)) throw error;
      // Every connection holding the old name meets the same error once; the first raises the generation.
      if ((this.generations.get(name) ?? 0) === generation) this.generations.set(name, generation + 1);
      return this.run<R>({ name: `${name}_${this.generations.get(name)}`, text, values });
    }
  }

  private async run<R>(config: pg.QueryConfig): Promise<PostgresQueryResult<R>> {
    if (this.#answerLost)
      throw markedLostAnswer(new Error('Connection terminated: an answer was lost'), this.pid);
    let result: pg.QueryResult;
    try {
      result = await this.client.query(config);
    } catch (error) {
      if (!isLostAnswer(error)) throw error;
      this.#answerLost = true;
      throw markedLostAnswer(error, this.pid);
    }
    return {
      command: result.command as PostgresQueryResult<R>['command'],
      rowCount: result.rowCount ?? 0,
      rows: result.rows as R[],
    };
  }
}
