import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { isLostAnswer, lostAnswerBackend } from './errors.js';
import type { Database } from './schema.js';

type Executor = Kysely<Database>;

/**
 * What a write asks when its answer was lost: on the primary, now, did it commit? `find` looks for what the
 * write made by the ids the process chose itself (a user's, a post's, …) and returns it, or undefined.
 */
export interface OutcomeCheck {
  /**
   * After a write failed with `error`: what `find` returns on a fresh connection to the primary when the
   * write's answer was lost; undefined when the write is known not to have committed for another reason
   * (the caller reports that error), when `find` found nothing, or when the primary cannot tell (frozen,
   * unreachable) within the check's bound. The caller answers 503 then.
   */
  committed<T>(error: unknown, find: (db: Executor) => Promise<T | undefined>): Promise<T | undefined>;
}

/**
 * The check on a PostgreSQL primary. Before it looks, it ends the server process that received the write
 * (pg_terminate_backend, waiting for it to be gone): a statement still queued in that process's socket, or
 * still running, can then never commit after the look said "not there". Without that fence a frozen server
 * that resumes would commit the write after we had answered 503 for it. The embedded database has no such
 * failure (one connection, in the process) and never gets a check.
 */
export class PrimaryOutcomeCheck implements OutcomeCheck {
  constructor(
    private readonly url: string,
    /** Bounds the whole check: the connection, the fence and the look. */
    private readonly timeoutMs: number,
  ) {}

  async committed<T>(error: unknown, find: (db: Executor) => Promise<T | undefined>): Promise<T | undefined> {
    if (!isLostAnswer(error)) return undefined;
    const pool = new pg.Pool({
      connectionString: this.url,
      max: 1,
      connectionTimeoutMillis: this.timeoutMs,
      statement_timeout: this.timeoutMs,
      query_timeout: this.timeoutMs,
    });
    pool.on('error', () => {});
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), this.timeoutMs);
    });
    try {
      return await Promise.race([this.#look(db, lostAnswerBackend(error), find), bound]);
    } catch {
      // The primary cannot say (still frozen, or refusing): unknown, which the caller reports as a 503.
      return undefined;
    } finally {
      clearTimeout(timer);
      // Not awaited: a frozen server must not hold the answer; the pool's own timeouts end the connection.
      void db.destroy().catch(() => {});
    }
  }

  async #look<T>(
    db: Executor,
    pid: number | undefined,
    find: (db: Executor) => Promise<T | undefined>,
  ): Promise<T | undefined> {
    const found = await find(db);
    if (found !== undefined || pid === undefined) return found;
    // Not there yet: end the process that holds the write, so that "not there" stays true, then look again.
    // (A process that would not end in time may still commit: found nothing is then "unknown", still a 503.)
    await sql`
      SELECT pg_terminate_backend(pid, ${this.timeoutMs}::bigint)
      FROM pg_stat_activity WHERE pid = ${pid}::int AND datname = current_database()`.execute(db);
    return find(db);
  }
}
