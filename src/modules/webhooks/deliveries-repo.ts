import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { WebhookAttemptOutcome } from '../../db/schema-events.js';
import type { Executor } from '../../db/transaction.js';
import { PARKED, STREAK, STREAK_OR_GONE } from './endpoints-repo.js';

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
  /** The W3C traceparent of the request that wrote the event (0047); null when tracing was off. */
  traceparent: string | null;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
}

/** What one fan-out pass did: the events it picked, and the new deliveries it claimed to send. */
export interface FannedOut {
  events: number;
  claimed: ClaimedDelivery[];
}

/** The outcome of one attempt, as recorded. */
export interface RecordedAttempt {
  statusCode: number | null;
  error: string | null;
  outcome: WebhookAttemptOutcome;
  /** Seconds until the next attempt (a `retry`). */
  retryInSeconds: number;
  /** The receiver answered 410 Gone: a `retry` is parked, as its endpoint is about to be disabled. */
  gone?: boolean;
}

/** What waits: an event not yet fanned out, a delivery due. */
export interface WebhookWork {
  undispatched: boolean;
  due: boolean;
}

/** Where the endpoint matches the event's type (`w`, `e`): all types, or the event's among its list. */
const SUBSCRIBED = sql`(w.event_types IS NULL OR w.event_types @> jsonb_build_array(e.type))`;

/** When a replayed delivery to endpoint `w` is due: now, or parked while the endpoint is disabled. */
const REPLAY_DUE = sql`CASE WHEN w.disabled_at IS NULL THEN now() ELSE ${PARKED} END`;

/** A replay: the delivery waits again, its attempts counted anew (and unclaimed, if it was). */
const RESET = sql`ON CONFLICT (event_id, endpoint_id) DO UPDATE SET attempts = 0,
  next_attempt_at = excluded.next_attempt_at, lease = NULL`;

/** What a claim returns beside the delivery's own columns (`d`): the event (`e`) and the endpoint (`w`). */
const SENT_WITH = sql`e.type, e.data, e.occurred_at, e.traceparent, w.url, w.secret, w.previous_secret,
  w.previous_secret_expires_at`;

/**
 * The SQL of the delivery queue (webhook_deliveries: what waits to be sent) and its record
 * (webhook_attempts), and the fan-out of account_events into the queue.
 */
export class WebhookDeliveriesRepo {
  constructor(private readonly db: Executor) {}

  /**
   * Fans up to `limit` events not yet fanned out to the endpoints enabled and subscribed now, and marks them
   * dispatched, in one statement. Every new delivery is claimed at once for `leaseSeconds` under a fresh lease
   * and returned to be sent (a new delivery costs no second write to be claimed, and no claim of its own),
   * except those of the `busy` endpoints (this instance cannot start them soon): they are queued due now,
   * for the next claim of any instance. SKIP LOCKED: two instances fan out different events.
   */
  async fanOut(limit: number, leaseSeconds: number, busy: readonly string[] = []): Promise<FannedOut> {
    const result = await sql<{ events: number } & Partial<ClaimedDelivery>>`
      WITH picked AS (
        SELECT id, type, data, occurred_at, traceparent FROM account_events WHERE dispatched_at IS NULL
        ORDER BY occurred_at LIMIT ${limit} FOR UPDATE SKIP LOCKED
      ), queued AS (
        INSERT INTO webhook_deliveries (event_id, endpoint_id, lease, next_attempt_at)
        SELECT e.id, w.id, CASE WHEN w.id = ANY(${busy}::uuid[]) THEN NULL ELSE ${randomUUID()}::uuid END,
          CASE WHEN w.id = ANY(${busy}::uuid[]) THEN now() ELSE now() + make_interval(secs => ${leaseSeconds}) END
        FROM picked e JOIN webhook_endpoints w ON w.disabled_at IS NULL AND ${SUBSCRIBED}
        ON CONFLICT DO NOTHING
        RETURNING event_id, endpoint_id, attempts, lease
      ), marked AS (
        UPDATE account_events a SET dispatched_at = now() FROM picked WHERE a.id = picked.id
      ), sent AS (
        SELECT d.event_id, d.endpoint_id, d.attempts, d.lease, ${SENT_WITH}
        FROM queued d JOIN picked e ON e.id = d.event_id JOIN webhook_endpoints w ON w.id = d.endpoint_id
        WHERE d.lease IS NOT NULL
      )
      SELECT (SELECT count(*) FROM picked)::int AS events, sent.*
      FROM (SELECT) one LEFT JOIN sent ON true ORDER BY sent.occurred_at`.execute(this.db);
    // The one row of a fan-out that queued nothing carries no delivery (the LEFT JOIN's nulls).
    const claimed: ClaimedDelivery[] = result.rows.filter(
      (row): row is (typeof result.rows)[number] & ClaimedDelivery => row.lease != null,
    );
    return { events: result.rows[0]?.events ?? 0, claimed };
  }

  /**
   * Claims up to `limit` due deliveries of enabled endpoints other than `busy` for `leaseSeconds`, at most
   * `limit` of each endpoint, found through the endpoint's own index range (a backlog of one endpoint is never
   * stepped over to find another's): each is due again when the lease runs out (a process that died holding
   * it loses nothing), and gets a fresh lease token. SKIP LOCKED: two instances never claim one delivery.
   */
  async claimDue(
    limit: number,
    leaseSeconds: number,
    busy: readonly string[] = [],
  ): Promise<ClaimedDelivery[]> {
    const result = await sql<ClaimedDelivery>`
      WITH due AS (
        SELECT d.event_id, d.endpoint_id FROM webhook_endpoints w
        CROSS JOIN LATERAL (
          SELECT event_id, endpoint_id, next_attempt_at FROM webhook_deliveries
          WHERE endpoint_id = w.id AND next_attempt_at <= now()
          ORDER BY next_attempt_at LIMIT ${limit}
          FOR UPDATE SKIP LOCKED
        ) d
        WHERE w.disabled_at IS NULL AND NOT (w.id = ANY(${busy}::uuid[]))
        ORDER BY d.next_attempt_at LIMIT ${limit}
      )
      UPDATE webhook_deliveries d
      SET next_attempt_at = now() + make_interval(secs => ${leaseSeconds}), lease = gen_random_uuid()
      FROM due, account_events e, webhook_endpoints w
      WHERE d.event_id = due.event_id AND d.endpoint_id = due.endpoint_id
        AND e.id = d.event_id AND w.id = d.endpoint_id
      RETURNING d.event_id, d.endpoint_id, d.attempts, d.lease, ${SENT_WITH}`.execute(this.db);
    return result.rows;
  }

  /**
   * Records the outcomes of claimed deliveries, each only if its delivery's lease is still the current one (a
   * holder whose lease ran out and was taken over records nothing): a delivered or failed one leaves the
   * queue, a retried one waits again; each attempt is written, and each endpoint's failing run. Returns the
   * indexes of `outcomes` that were recorded.
   */
  async record(
    outcomes: readonly { delivery: ClaimedDelivery; outcome: RecordedAttempt }[],
  ): Promise<number[]> {
    if (outcomes.length === 0) return [];
    const column = <T>(of: (entry: (typeof outcomes)[number]) => T) => outcomes.map(of);
    // One statement for the whole batch, atomic on its own: every login or sign-up makes deliveries, and a
    // statement per delivery was most of what one cost. An endpoint's row is written only when its failing
    // streak starts or ends, or its receiver answered 410 Gone (endpoints-repo.ts).
    const result = await sql<{ position: number }>`
      WITH outcome AS (
        SELECT * FROM unnest(${column((o) => o.delivery.event_id)}::uuid[],
          ${column((o) => o.delivery.endpoint_id)}::uuid[], ${column((o) => o.delivery.lease)}::uuid[],
          ${column((o) => o.outcome.outcome)}::text[], ${column((o) => o.outcome.statusCode)}::int[],
          ${column((o) => o.outcome.error)}::text[], ${column((o) => o.outcome.retryInSeconds)}::float8[],
          ${column((o) => o.outcome.gone === true)}::bool[])
          WITH ORDINALITY AS o(event_id, endpoint_id, lease, outcome, status_code, error, retry_in, gone, position)
      ), settled AS (
        DELETE FROM webhook_deliveries d USING outcome o
        WHERE o.outcome <> 'retry' AND d.event_id = o.event_id AND d.endpoint_id = o.endpoint_id
          AND d.lease = o.lease
        RETURNING d.event_id, d.endpoint_id, d.attempts + 1 AS attempt, NULL::timestamptz AS next_attempt_at,
          o.outcome, o.status_code, o.error, o.position
      ), retried AS (
        UPDATE webhook_deliveries d SET attempts = d.attempts + 1, lease = NULL,
          next_attempt_at = CASE
            WHEN NOT o.gone AND (SELECT disabled_at FROM webhook_endpoints WHERE id = d.endpoint_id) IS NULL
              THEN now() + make_interval(secs => o.retry_in)
            ELSE ${PARKED}
          END
        FROM outcome o
        WHERE o.outcome = 'retry' AND d.event_id = o.event_id AND d.endpoint_id = o.endpoint_id
          AND d.lease = o.lease
        RETURNING d.event_id, d.endpoint_id, d.attempts AS attempt, d.next_attempt_at, o.outcome, o.status_code,
          o.error, o.position
      ), recorded AS (
        SELECT * FROM settled UNION ALL SELECT * FROM retried
      ), attempt AS (
        INSERT INTO webhook_attempts (event_id, endpoint_id, attempt, outcome, status_code, error, next_attempt_at)
        SELECT event_id, endpoint_id, attempt, outcome, status_code, error,
          NULLIF(next_attempt_at, ${PARKED}) FROM recorded
      ), streak AS (
        ${outcomes.some((o) => o.outcome.gone === true) ? STREAK_OR_GONE : STREAK}
      )
      SELECT position::int - 1 AS position FROM recorded`.execute(this.db);
    return result.rows.map((row) => row.position);
  }

  /**
   * Lets go of claimed deliveries that were not attempted (their claim's time ran short): due at once for the
   * next claim, or parked if their endpoint was disabled meanwhile. Only under the lease they were claimed
   * with: one that ran out and was taken over is left to its new holder.
   */
  async release(deliveries: readonly ClaimedDelivery[]): Promise<void> {
    if (deliveries.length === 0) return;
    await sql`
      UPDATE webhook_deliveries d SET lease = NULL,
        next_attempt_at = CASE WHEN w.disabled_at IS NULL THEN now() ELSE ${PARKED} END
      FROM unnest(${deliveries.map((d) => d.event_id)}::uuid[], ${deliveries.map((d) => d.endpoint_id)}::uuid[],
          ${deliveries.map((d) => d.lease)}::uuid[]) AS r(event_id, endpoint_id, lease),
        webhook_endpoints w
      WHERE d.event_id = r.event_id AND d.endpoint_id = r.endpoint_id AND d.lease = r.lease
        AND w.id = d.endpoint_id`.execute(this.db);
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

  /** Re-sends to one endpoint every event it subscribes to since `since`, or the one event; how many. */
  async replayTo(endpointId: string, events: { since: Date } | { eventId: string }): Promise<number> {
    const result = await sql`
      INSERT INTO webhook_deliveries (event_id, endpoint_id, next_attempt_at)
      SELECT e.id, w.id, ${REPLAY_DUE}
      FROM account_events e JOIN webhook_endpoints w ON w.id = ${endpointId} AND ${SUBSCRIBED}
      WHERE ${'since' in events ? sql`e.occurred_at >= ${events.since}` : sql`e.id = ${events.eventId}`}
      ${RESET}`.execute(this.db);
    return Number(result.numAffectedRows ?? 0n);
  }

  /**
   * Whether an event waits to be fanned out, and whether a delivery is due: a probe of a small index, and one
   * of each enabled endpoint's range of the deliveries' index (endpoints are few).
   */
  async work(): Promise<WebhookWork> {
    const result = await sql<WebhookWork>`
      SELECT EXISTS (SELECT 1 FROM account_events WHERE dispatched_at IS NULL) AS undispatched,
        EXISTS (
          SELECT 1 FROM webhook_endpoints w
          WHERE w.disabled_at IS NULL AND EXISTS (
            SELECT 1 FROM webhook_deliveries d WHERE d.endpoint_id = w.id AND d.next_attempt_at <= now())
        ) AS due`.execute(this.db);
    return result.rows[0] ?? { undispatched: false, due: false };
  }

  async eventExists(eventId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('account_events')
      .select('id')
      .where('id', '=', eventId)
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * Deletes up to `limit` events older than `days` days that are dispatched and wait for no delivery, with
   * their attempts; how many.
   */
  async purge(days: number, limit: number): Promise<number> {
    const result = await sql<{ purged: number }>`
      WITH gone AS (
        DELETE FROM account_events WHERE id IN (
          SELECT e.id FROM account_events e
          WHERE e.occurred_at < now() - make_interval(days => ${days}) AND e.dispatched_at IS NOT NULL
            AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id)
          ORDER BY e.occurred_at LIMIT ${limit}
          FOR UPDATE SKIP LOCKED)
        RETURNING id
      ), attempts AS (
        DELETE FROM webhook_attempts a USING gone WHERE a.event_id = gone.id
      )
      SELECT count(*)::int AS purged FROM gone`.execute(this.db);
    return result.rows[0]?.purged ?? 0;
  }

  /** The queue's depth (waiting deliveries and events not fanned out) and when its oldest event happened. */
  async backlog(): Promise<{ pending: number; oldestAt: Date | null }> {
    const result = await sql<{ pending: string; oldest_at: Date | null }>`
      SELECT
        (SELECT count(*) FROM webhook_deliveries)
          + (SELECT count(*) FROM account_events WHERE dispatched_at IS NULL) AS pending,
        least(
          (SELECT min(e.occurred_at) FROM webhook_deliveries d JOIN account_events e ON e.id = d.event_id),
          (SELECT min(occurred_at) FROM account_events WHERE dispatched_at IS NULL)) AS oldest_at`.execute(
      this.db,
    );
    const row = result.rows[0];
    return { pending: Number(row?.pending ?? 0), oldestAt: row?.oldest_at ?? null };
  }
}
