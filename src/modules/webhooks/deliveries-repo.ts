import { sql } from 'kysely';
import type { WebhookDeliveryStatus } from '../../db/schema-events.js';
import type { Executor } from '../../db/transaction.js';

/** A delivery claimed for one attempt, with what sending it needs. */
export interface ClaimedDelivery {
  event_id: string;
  endpoint_id: string;
  /** Attempts made before this one. */
  attempts: number;
  /** The claim's token: only its holder records the outcome. */
  lease: string;
  type: string;
  data: unknown;
  occurred_at: Date;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
}

/** The outcome of one attempt, as recorded. */
export interface RecordedAttempt {
  statusCode: number | null;
  error: string | null;
  status: WebhookDeliveryStatus;
  /** Seconds until the next attempt (a pending delivery). */
  retryInSeconds: number;
}

/** One attempt as `webhook deliveries` lists it. */
export interface AttemptRow {
  event_id: string;
  endpoint_id: string;
  type: string;
  attempted_at: Date;
  status_code: number | null;
  error: string | null;
  next_attempt_at: Date | null;
  status: WebhookDeliveryStatus;
}

/** Where the endpoint matches the event's type (`w`, `e`): all types, or the event's among its list. */
const SUBSCRIBED = sql`(w.event_types IS NULL OR w.event_types @> jsonb_build_array(e.type))`;

/** A replay: the delivery is pending again, due now, its attempts counted anew. */
const RESET = sql`ON CONFLICT (event_id, endpoint_id) DO UPDATE SET status = 'pending', attempts = 0,
  next_attempt_at = now(), lease = NULL, delivered_at = NULL`;

/** The SQL of webhook_deliveries and webhook_attempts, and the dispatch of account_events into them. */
export class WebhookDeliveriesRepo {
  constructor(private readonly db: Executor) {}

  /**
   * Fans up to `limit` undispatched events out to the endpoints enabled and subscribed now, and marks them
   * dispatched, in one statement. SKIP LOCKED: two instances fan out different events, never one twice.
   */
  async dispatch(limit: number): Promise<number> {
    const result = await sql<{ id: string }>`
      WITH picked AS (
        SELECT id, type FROM account_events WHERE dispatched_at IS NULL
        ORDER BY occurred_at LIMIT ${limit} FOR UPDATE SKIP LOCKED
      ), fanned AS (
        INSERT INTO webhook_deliveries (event_id, endpoint_id)
        SELECT e.id, w.id FROM picked e JOIN webhook_endpoints w ON w.disabled_at IS NULL AND ${SUBSCRIBED}
        ON CONFLICT DO NOTHING
      )
      UPDATE account_events a SET dispatched_at = now() FROM picked WHERE a.id = picked.id
      RETURNING a.id`.execute(this.db);
    return result.rows.length;
  }

  /**
   * Claims up to `limit` due deliveries of enabled endpoints for `leaseSeconds`: each is due again when the
   * lease runs out (a process that died holding it loses nothing), and gets a fresh lease token. SKIP
   * LOCKED: two instances never claim one delivery.
   */
  async claimDue(limit: number, leaseSeconds: number): Promise<ClaimedDelivery[]> {
    const result = await sql<ClaimedDelivery>`
      WITH due AS (
        SELECT d.event_id, d.endpoint_id FROM webhook_deliveries d
        JOIN webhook_endpoints w ON w.id = d.endpoint_id AND w.disabled_at IS NULL
        WHERE d.status = 'pending' AND d.next_attempt_at <= now()
        ORDER BY d.next_attempt_at LIMIT ${limit}
        FOR UPDATE OF d SKIP LOCKED
      )
      UPDATE webhook_deliveries d
      SET next_attempt_at = now() + make_interval(secs => ${leaseSeconds}), lease = gen_random_uuid()
      FROM due, account_events e, webhook_endpoints w
      WHERE d.event_id = due.event_id AND d.endpoint_id = due.endpoint_id
        AND e.id = d.event_id AND w.id = d.endpoint_id
      RETURNING d.event_id, d.endpoint_id, d.attempts, d.lease, e.type, e.data, e.occurred_at, w.url,
        w.secret, w.previous_secret, w.previous_secret_expires_at`.execute(this.db);
    return result.rows;
  }

  /**
   * Records the outcomes of a claimed batch, each only if its delivery's lease is still the current one (a
   * holder whose lease ran out and was taken over records nothing), with the attempts themselves and each
   * endpoint's failing run. Returns the indexes of `outcomes` that were recorded.
   */
  async record(
    outcomes: readonly { delivery: ClaimedDelivery; outcome: RecordedAttempt }[],
  ): Promise<number[]> {
    if (outcomes.length === 0) return [];
    const column = <T>(of: (entry: (typeof outcomes)[number]) => T) => outcomes.map(of);
    // One statement for the whole batch (its outcomes, their attempts, the endpoints' failing streaks), atomic
    // on its own: every login or sign-up makes a delivery, and a statement per delivery was most of what one
    // cost. An endpoint's row is written only when its streak starts or ends: any delivery of the batch that
    // went through ends it; failures alone start it.
    const result = await sql<{ position: number }>`
      WITH outcome AS (
        SELECT * FROM unnest(${column((o) => o.delivery.event_id)}::uuid[],
          ${column((o) => o.delivery.endpoint_id)}::uuid[], ${column((o) => o.delivery.lease)}::uuid[],
          ${column((o) => o.outcome.status)}::text[], ${column((o) => o.outcome.statusCode)}::int[],
          ${column((o) => o.outcome.error)}::text[], ${column((o) => o.outcome.retryInSeconds)}::float8[])
          WITH ORDINALITY AS o(event_id, endpoint_id, lease, status, status_code, error, retry_in, position)
      ), updated AS (
        UPDATE webhook_deliveries d SET status = o.status, attempts = d.attempts + 1, lease = NULL,
          last_attempt_at = now(), last_status_code = o.status_code, last_error = o.error,
          delivered_at = CASE WHEN o.status = 'delivered' THEN now() END,
          next_attempt_at = now() + make_interval(secs => o.retry_in)
        FROM outcome o
        WHERE d.event_id = o.event_id AND d.endpoint_id = o.endpoint_id AND d.lease = o.lease
        RETURNING d.event_id, d.endpoint_id, d.next_attempt_at, o.status, o.status_code, o.error, o.position
      ), attempt AS (
        INSERT INTO webhook_attempts (event_id, endpoint_id, status_code, error, next_attempt_at)
        SELECT event_id, endpoint_id, status_code, error,
          CASE WHEN status = 'pending' THEN next_attempt_at END
        FROM updated
      ), streak AS (
        UPDATE webhook_endpoints w
        SET failing_since = CASE WHEN s.delivered THEN NULL ELSE now() END
        FROM (SELECT endpoint_id, bool_or(status = 'delivered') AS delivered FROM updated GROUP BY endpoint_id) s
        WHERE w.id = s.endpoint_id AND (w.failing_since IS NULL) = NOT s.delivered
      )
      SELECT position::int - 1 AS position FROM updated`.execute(this.db);
    return result.rows.map((row) => row.position);
  }

  /** Re-sends one event to every endpoint enabled and subscribed now; the endpoints it goes to. */
  async replayEvent(eventId: string): Promise<string[]> {
    const result = await sql<{ endpoint_id: string }>`
      INSERT INTO webhook_deliveries (event_id, endpoint_id)
      SELECT e.id, w.id FROM account_events e JOIN webhook_endpoints w ON w.disabled_at IS NULL AND ${SUBSCRIBED}
      WHERE e.id = ${eventId}
      ${RESET}
      RETURNING endpoint_id`.execute(this.db);
    return result.rows.map((row) => row.endpoint_id);
  }

  /** Re-sends to one endpoint every event it subscribes to since `since`; how many. */
  async replaySince(endpointId: string, since: Date): Promise<number> {
    const result = await sql`
      INSERT INTO webhook_deliveries (event_id, endpoint_id)
      SELECT e.id, w.id FROM account_events e JOIN webhook_endpoints w ON w.id = ${endpointId} AND ${SUBSCRIBED}
      WHERE e.occurred_at >= ${since}
      ${RESET}`.execute(this.db);
    return Number(result.numAffectedRows ?? 0n);
  }

  /** Whether an event is undispatched or a delivery is due: two probes of the partial indexes. */
  async hasWork(): Promise<boolean> {
    const result = await sql<{ work: boolean }>`
      SELECT EXISTS (SELECT 1 FROM account_events WHERE dispatched_at IS NULL)
        OR EXISTS (
          SELECT 1 FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id
          WHERE d.status = 'pending' AND d.next_attempt_at <= now() AND w.disabled_at IS NULL)
        AS work`.execute(this.db);
    return result.rows[0]?.work === true;
  }

  async eventExists(eventId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('account_events')
      .select('id')
      .where('id', '=', eventId)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** The latest attempts, newest first: of one endpoint or all, and only failed ones when asked. */
  async attempts(options: { endpointId?: string; failed: boolean; limit: number }): Promise<AttemptRow[]> {
    let query = this.db
      .selectFrom('webhook_attempts as a')
      .innerJoin('account_events as e', 'e.id', 'a.event_id')
      .innerJoin('webhook_deliveries as d', (join) =>
        join.onRef('d.event_id', '=', 'a.event_id').onRef('d.endpoint_id', '=', 'a.endpoint_id'),
      )
      .select([
        'a.event_id',
        'a.endpoint_id',
        'e.type',
        'a.attempted_at',
        'a.status_code',
        'a.error',
        'a.next_attempt_at',
        'd.status',
      ]);
    if (options.endpointId !== undefined) query = query.where('a.endpoint_id', '=', options.endpointId);
    if (options.failed) {
      query = query.where((eb) =>
        eb.or([
          eb('a.status_code', 'is', null),
          eb('a.status_code', '<', 200),
          eb('a.status_code', '>', 299),
        ]),
      );
    }
    return query.orderBy('a.attempted_at', 'desc').orderBy('a.id', 'desc').limit(options.limit).execute();
  }

  /**
   * Deletes up to `limit` events older than `days` days that are dispatched and have no pending delivery
   * (their deliveries and attempts go with them); how many.
   */
  async purge(days: number, limit: number): Promise<number> {
    const result = await sql`
      DELETE FROM account_events WHERE id IN (
        SELECT e.id FROM account_events e
        WHERE e.occurred_at < now() - make_interval(days => ${days}) AND e.dispatched_at IS NOT NULL
          AND NOT EXISTS (
            SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.status = 'pending')
        ORDER BY e.occurred_at LIMIT ${limit}
        FOR UPDATE SKIP LOCKED)`.execute(this.db);
    return Number(result.numAffectedRows ?? 0n);
  }

  /** The queue's depth (pending deliveries and undispatched events) and when its oldest event happened. */
  async backlog(): Promise<{ pending: number; oldestAt: Date | null }> {
    const result = await sql<{ pending: string; oldest_at: Date | null }>`
      SELECT
        (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending')
          + (SELECT count(*) FROM account_events WHERE dispatched_at IS NULL) AS pending,
        least(
          (SELECT min(e.occurred_at) FROM webhook_deliveries d JOIN account_events e ON e.id = d.event_id
            WHERE d.status = 'pending'),
          (SELECT min(occurred_at) FROM account_events WHERE dispatched_at IS NULL)) AS oldest_at`.execute(
      this.db,
    );
    const row = result.rows[0];
    return { pending: Number(row?.pending ?? 0), oldestAt: row?.oldest_at ?? null };
  }
}
