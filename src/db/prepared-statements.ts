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
 * Which SQL is prepared is decided in one place: `Precompiled` (db/precompiled.ts) marks the SQL it
 * compiles (`markedForPreparing`), the SQL never changes, and the number of such statements is fixed by the
 * code. Everything else runs unnamed, as before. The names belong to a database handle: its pools (the
 * primary's and each replica's) share one `PreparedStatements`, which names marked SQL when it first runs
 * and sends it without its mark.
 */
const PREPARE_MARK = '/* prepared */ ';

/** `sql` marked as worth preparing on each connection that runs it (taken off again before it is sent). */
export function markedForPreparing(sql: string): string {
  return PREPARE_MARK + sql;
}

/** How a marked statement goes to the database: its text, and the name it runs under (none: unnamed). */
export interface MarkedStatement {
  text: string;
  name: string | undefined;
}

/** The named statements of one database handle: each marked SQL's name, given when it first runs. */
export class PreparedStatements {
  readonly #byMarkedSql = new Map<string, MarkedStatement>();

  /** `enabled` false (DATABASE_PREPARED_STATEMENTS=false): marked SQL is sent unnamed. */
  constructor(readonly enabled = true) {}

  /** How marked `sql` is sent: without its mark, under its name; undefined for SQL sent as it is. */
  marked(sql: string): MarkedStatement | undefined {
    if (!sql.startsWith(PREPARE_MARK)) return undefined;
    let statement = this.#byMarkedSql.get(sql);
    if (statement === undefined) {
      const name = this.enabled ? `accounts_${this.#byMarkedSql.size + 1}` : undefined;
      statement = { text: sql.slice(PREPARE_MARK.length), name };
      this.#byMarkedSql.set(sql, statement);
    }
    return statement;
  }

  /** The name the (unmarked) `text` runs under on this handle, once it has run. */
  nameOf(text: string): string | undefined {
    return this.#byMarkedSql.get(PREPARE_MARK + text)?.name;
  }
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
    /** The handle's names (disabled for a pooler that cannot keep named statements: all run unnamed). */
    private readonly statements = new PreparedStatements(),
  ) {}

  async connect(): Promise<PostgresPoolClient> {
    const client = await this.pool.connect();
    let wrapper = this.wrappers.get(client);
    if (wrapper === undefined) {
      wrapper = new PreparingClient(client, this.generations, this.statements);
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
    private readonly statements: PreparedStatements,
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
    const marked = this.statements.marked(sqlOrCursor);
    if (marked?.name === undefined) return this.run<R>({ text: marked?.text ?? sqlOrCursor, values });
    return this.runNamed<R>(marked.name, marked.text, values);
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
