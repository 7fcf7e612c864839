import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import type { SpanAttributes, Tracing } from '../lib/tracing.js';

/** The words a span is named by: `db SELECT`, `db INSERT`, … (the statement's first keyword). */
const KEYWORD = /^\s*(?:\/\*[^*]*\*\/\s*)?([A-Za-z]+)/;
/**
 * Distinct statements whose name and attributes are kept: the SQL is parameterised, so the app has a few
 * hundred texts at most; past this (an `in (…)` of a new length each time, say) the cache starts over.
 */
const MAX_CACHED = 1_000;

interface Described {
  name: string;
  attributes: SpanAttributes;
}

interface StatementRecorder {
  /** Whether a statement run now would be recorded: inside a request the sampler kept. */
  recording(): boolean;
  /** Records one statement that took `durationMs` and ended now (with its error when it failed). */
  record(sql: string, durationMs: number, error?: unknown): void;
}

/**
 * A span per database statement, on PGlite and PostgreSQL alike: the pool's `query` is timed where it is
 * called, in the async context of the code that ran it, so the span is a child of that request's. The SQL is
 * parameterised (db/, never a value in it), so its text is safe to export; the values are not sent.
 *
 * Timed here rather than through Kysely's `log`: Kysely wraps every statement of a logging instance in three
 * async functions more, and under Node 20's AsyncLocalStorage (tracing's context) each of their promises
 * passes through the async hooks. When tracing is off the pool is returned as it is: nothing more per statement.
 */
export function tracedPool(
  pool: PostgresPool,
  tracing: Tracing | undefined,
  system: 'pglite' | 'postgresql',
): PostgresPool {
  if (tracing === undefined || !tracing.enabled) return pool;
  return new TracedPool(pool, statementRecorder(tracing, system));
}

function statementRecorder(tracing: Tracing, system: 'pglite' | 'postgresql'): StatementRecorder {
  // Each text's name and attributes, worked out once: a statement then allocates nothing of its own before
  // the span (the SDK copies the attributes).
  const described = new Map<string, Described>();
  const describe = (sql: string): Described => {
    const known = described.get(sql);
    if (known !== undefined) return known;
    const operation = (KEYWORD.exec(sql)?.[1] ?? 'statement').toUpperCase();
    const fresh: Described = {
      name: `db ${operation}`,
      attributes: {
        'db.system.name': system,
        'db.operation.name': operation,
        'db.query.text': sql.slice(0, 2048),
      },
    };
    if (described.size >= MAX_CACHED) described.clear();
    described.set(sql, fresh);
    return fresh;
  };
  return {
    recording: () => tracing.recording(),
    record: (sql, durationMs, error) => {
      const { name, attributes } = describe(sql);
      tracing.ended(name, attributes, durationMs, error);
    },
  };
}

class TracedPool implements PostgresPool {
  /**
   * One wrapper per client object, made once: the PostgreSQL pool hands out the same wrapper per pooled
   * connection (db/prepared-statements.ts says why that matters), and so does this.
   */
  private readonly wrappers = new WeakMap<PostgresPoolClient, PostgresPoolClient>();

  constructor(
    private readonly pool: PostgresPool,
    private readonly recorder: StatementRecorder,
  ) {}

  connect(): Promise<PostgresPoolClient> {
    return this.pool.connect().then((client) => {
      let wrapper = this.wrappers.get(client);
      if (wrapper === undefined) {
        wrapper = tracedClient(client, this.recorder);
        this.wrappers.set(client, wrapper);
      }
      return wrapper;
    });
  }

  end(): Promise<void> {
    return this.pool.end();
  }
}

function tracedClient(client: PostgresPoolClient, recorder: StatementRecorder): PostgresPoolClient {
  function query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
  function query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  function query<R>(
    sqlOrCursor: string | PostgresCursor<R>,
    parameters?: ReadonlyArray<unknown>,
  ): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    if (typeof sqlOrCursor !== 'string') return client.query(sqlOrCursor);
    const sql = sqlOrCursor;
    // A request the sampler left out runs its statements as they are: no clock, no reaction, no span.
    if (!recorder.recording()) return client.query<R>(sql, parameters ?? []);
    const start = performance.now();
    // One reaction, no async function: the callbacks run in the caller's context, as the statement did.
    return client.query<R>(sql, parameters ?? []).then(
      (result) => {
        recorder.record(sql, performance.now() - start);
        return result;
      },
      (error: unknown) => {
        recorder.record(sql, performance.now() - start, error);
        throw error;
      },
    );
  }
  return { query, release: () => client.release() };
}
