import type { LogEvent, Logger } from 'kysely';
import type { Tracing } from '../lib/tracing.js';

/** The words a span is named by: `db SELECT`, `db INSERT`, … (the statement's first keyword). */
const KEYWORD = /^\s*(?:\/\*[^*]*\*\/\s*)?([A-Za-z]+)/;

/**
 * A span per database statement, on PGlite and PostgreSQL alike: Kysely reports each statement as it ends,
 * with its duration, in the async context of the code that ran it, so the span is a child of that request's.
 * The SQL is parameterised (db/, never a value in it), so its text is safe to export; the values are not sent.
 * undefined when tracing is off: Kysely then logs nothing and the statement path costs nothing more.
 */
export function statementSpans(
  tracing: Tracing | undefined,
  system: 'pglite' | 'postgresql',
): Logger | undefined {
  if (tracing === undefined || !tracing.enabled) return undefined;
  return (event: LogEvent) => {
    const { sql } = event.query;
    const operation = (KEYWORD.exec(sql)?.[1] ?? 'statement').toUpperCase();
    tracing.ended(
      `db ${operation}`,
      { 'db.system.name': system, 'db.operation.name': operation, 'db.query.text': sql.slice(0, 2048) },
      event.queryDurationMillis,
      event.level === 'error' ? event.error : undefined,
    );
  };
}
