import { sql } from 'kysely';
import type { WebhookAttemptOutcome } from '../../db/schema-events.js';
import type { Executor } from '../../db/transaction.js';
import { PARKED } from './endpoints-repo.js';

/** One attempt as `webhook deliveries` lists it. */
export interface AttemptRow {
  event_id: string;
  endpoint_id: string;
  type: string;
  attempt: number;
  attempted_at: Date;
  outcome: WebhookAttemptOutcome;
  status_code: number | null;
  error: string | null;
  next_attempt_at: Date | null;
}

/** The record of delivery attempts (webhook_attempts), as the operator lists it. */
export class WebhookAttemptsRepo {
  constructor(private readonly db: Executor) {}

  /** The latest attempts, newest first: of one endpoint or all, and only those that got no 2xx when asked. */
  async list(options: { endpointId?: string; failed: boolean; limit: number }): Promise<AttemptRow[]> {
    let query = this.db
      .selectFrom('webhook_attempts as a')
      .innerJoin('account_events as e', 'e.id', 'a.event_id')
      .select([
        'a.event_id',
        'a.endpoint_id',
        'e.type',
        'a.attempt',
        'a.attempted_at',
        'a.outcome',
        'a.status_code',
        'a.error',
        'a.next_attempt_at',
      ]);
    if (options.endpointId !== undefined) query = query.where('a.endpoint_id', '=', options.endpointId);
    if (options.failed) query = query.where('a.outcome', '<>', 'delivered');
    return query.orderBy('a.id', 'desc').limit(options.limit).execute();
  }
}

/** One attempt of a delivery, as the console lists it under the delivery. */
export interface DeliveryAttempt {
  attempt: number;
  attempted_at: Date;
  outcome: WebhookAttemptOutcome;
  status_code: number | null;
  error: string | null;
}

/** A delivery (one event to one endpoint) with its latest attempts, newest first. */
export interface DeliveryRow {
  /** Its latest attempt's id: the page's key. */
  key: string;
  event_id: string;
  type: string;
  occurred_at: Date;
  /** Whether the queue holds it again (a retry, or a replay not yet sent). */
  waiting: boolean;
  /** When it is due, if waiting; null when parked until its endpoint is enabled. */
  next_attempt_at: Date | null;
  attempts: DeliveryAttempt[];
}

/** At most this many attempts are shown under one delivery (a replayed one gathers more). */
export const ATTEMPTS_PER_DELIVERY = 20;

/** The keyset queries of the console's deliveries, beside the operator's list above. */
export class WebhookDeliveryPages {
  constructor(private readonly db: Executor) {}

  /**
   * An endpoint's deliveries, the one attempted last first, `limit` after the key `before`: a walk down the
   * endpoint's range of (endpoint_id, id) that keeps each delivery's newest attempt only, then each one's
   * attempts through (event_id, endpoint_id). A delivery attempted again meanwhile moves to the top: a page
   * read later never shows it twice, though one already passed may be found at the top again.
   */
  async page(endpointId: string, before: string | undefined, limit: number): Promise<DeliveryRow[]> {
    const after = before === undefined ? sql`` : sql`AND a.id < ${before}::bigint`;
    const result = await sql<Omit<DeliveryRow, 'attempts'> & { attempts: DeliveryAttempt[] | string }>`
      WITH latest AS (
        SELECT a.id, a.event_id FROM webhook_attempts a
        WHERE a.endpoint_id = ${endpointId} ${after} AND NOT EXISTS (
          SELECT 1 FROM webhook_attempts b
          WHERE b.event_id = a.event_id AND b.endpoint_id = a.endpoint_id AND b.id > a.id)
        ORDER BY a.id DESC LIMIT ${limit}
      )
      SELECT l.id::text AS key, l.event_id, e.type, e.occurred_at, d.event_id IS NOT NULL AS waiting,
        NULLIF(d.next_attempt_at, ${PARKED}) AS next_attempt_at,
        (SELECT json_agg(t ORDER BY t.id DESC) FROM (
          SELECT x.id, x.attempt, x.attempted_at, x.outcome, x.status_code, x.error FROM webhook_attempts x
          WHERE x.event_id = l.event_id AND x.endpoint_id = ${endpointId}
          ORDER BY x.id DESC LIMIT ${ATTEMPTS_PER_DELIVERY}) t) AS attempts
      FROM latest l JOIN account_events e ON e.id = l.event_id
      LEFT JOIN webhook_deliveries d ON d.event_id = l.event_id AND d.endpoint_id = ${endpointId}
      ORDER BY l.id DESC`.execute(this.db);
    return result.rows.map((row) => ({
      ...row,
      attempts: (typeof row.attempts === 'string'
        ? (JSON.parse(row.attempts) as (DeliveryAttempt & { id: number })[])
        : (row.attempts as (DeliveryAttempt & { id: number })[])
      ).map(({ attempt, attempted_at, outcome, status_code, error }) => ({
        attempt,
        attempted_at: new Date(attempted_at),
        outcome,
        status_code,
        error,
      })),
    }));
  }

  /** Whose account an event is of (null: of no one user); undefined when there is no such event. */
  async eventOwner(eventId: string): Promise<{ user_id: string | null } | undefined> {
    return this.db
      .selectFrom('account_events')
      .select('user_id')
      .where('id', '=', eventId)
      .executeTakeFirst();
  }
}
