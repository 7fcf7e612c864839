/** Classifies driver errors; node-postgres and PGlite both expose the server's SQLSTATE as `code`. */

interface PgError {
  code?: unknown;
  constraint?: unknown;
}

export function isUniqueViolation(error: unknown): error is PgError & { constraint?: string } {
  return (error as PgError | undefined)?.code === '23505';
}

export function violatedConstraint(error: unknown): string | undefined {
  const constraint = (error as PgError | undefined)?.constraint;
  return typeof constraint === 'string' ? constraint : undefined;
}

const CONNECTION_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  // The embedded pool's wait for its one connection timed out (db/pglite-pool.ts).
  'POOL_ACQUIRE_TIMEOUT',
  // statement_timeout cancelled the statement; lock_timeout gave up a lock wait; the server ended a
  // transaction left idle (idle_in_transaction_session_timeout).
  '57014',
  '55P03',
  '25P03',
]);

/**
 * True when the database could not be reached at all (server down, restarting, pool exhausted) or did not
 * answer within its timeouts (config/database.ts): that is a 503 the client may retry, not a fault of the
 * request.
 */
export function isConnectionError(error: unknown): boolean {
  const code = (error as PgError | undefined)?.code;
  if (typeof code === 'string') {
    // 08xxx connection exceptions, 57P01-57P03 admin shutdown / crash shutdown / cannot connect now.
    if (code.startsWith('08') || /^57P0[123]$/.test(code) || CONNECTION_ERROR_CODES.has(code)) return true;
  }
  const message = error instanceof Error ? error.message : '';
  return /timeout exceeded when trying to connect|Query read timeout|Connection terminated|connect ECONNREFUSED|Client has encountered a connection error/i.test(
    message,
  );
}

/**
 * A deadlock (40P01) or serialisation failure (40001): PostgreSQL rolled the transaction back so that another
 * could go on; running it again is the documented remedy.
 */
export function isRetryableConflict(error: unknown): boolean {
  const code = (error as PgError | undefined)?.code;
  return code === '40P01' || code === '40001';
}

/**
 * The statement (or COMMIT) was sent, or may have been, and no answer came: the client gave up waiting
 * (node-postgres' query_timeout), or the connection broke while it waited. Unlike a refused connection, a
 * pool that had no free client, or a statement the server cancelled itself (57014, 55P03), the server may
 * still have committed it, or may commit it later: its outcome is unknown until someone looks.
 */
export function isLostAnswer(error: unknown): boolean {
  if ((error as LostAnswer | undefined)?.lostAnswer === true) return true;
  const code = (error as PgError | undefined)?.code;
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'ETIMEDOUT') return true;
  // The server process was terminated (57P01) or crashed (57P02) while it ran the statement.
  if (code === '57P01' || code === '57P02') return true;
  const message = error instanceof Error ? error.message : '';
  return /^(Query read timeout|Connection terminated)/.test(message);
}

interface LostAnswer {
  lostAnswer?: boolean;
  /** The PostgreSQL process that received the statement, when known. */
  backendPid?: number;
}

/** Marks `error` as a lost answer of the server process `pid` (db/prepared-statements.ts). */
export function markedLostAnswer(error: unknown, pid: number | undefined): unknown {
  if (error !== null && typeof error === 'object')
    Object.assign(error, { lostAnswer: true, backendPid: pid });
  return error;
}

/** The server process a lost answer came from, when the connection knew it. */
export function lostAnswerBackend(error: unknown): number | undefined {
  const pid = (error as LostAnswer | undefined)?.backendPid;
  return typeof pid === 'number' ? pid : undefined;
}
