import { sql } from 'kysely';
import type { WebhookDisabledReason } from '../../db/schema-events.js';
import type { Executor } from '../../db/transaction.js';

/** An endpoint as its row holds it (the secrets sealed). */
export interface EndpointRow {
  id: string;
  url: string;
  description: string | null;
  event_types: string[] | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  created_at: Date;
  disabled_at: Date | null;
  disabled_reason: WebhookDisabledReason | null;
  failing_since: Date | null;
}

export interface NewEndpoint {
  id: string;
  url: string;
  description: string | null;
  eventTypes: string[] | null;
  sealedSecret: string;
}

/** The SQL of webhook_endpoints. */
export class WebhookEndpointsRepo {
  constructor(private readonly db: Executor) {}

  async insert(endpoint: NewEndpoint): Promise<void> {
    await this.db
      .insertInto('webhook_endpoints')
      .values({
        id: endpoint.id,
        url: endpoint.url,
        description: endpoint.description,
        event_types: endpoint.eventTypes === null ? null : JSON.stringify(endpoint.eventTypes),
        secret: endpoint.sealedSecret,
      })
      .execute();
  }

  async list(): Promise<EndpointRow[]> {
    return this.db.selectFrom('webhook_endpoints').selectAll().orderBy('created_at').orderBy('id').execute();
  }

  async find(id: string): Promise<EndpointRow | undefined> {
    return this.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Removes an endpoint, what waits for it (by the foreign key) and its attempts; false when there was none. */
  async remove(id: string): Promise<boolean> {
    const result = await sql<{ removed: boolean }>`
      WITH removed AS (DELETE FROM webhook_endpoints WHERE id = ${id} RETURNING id),
        attempts AS (DELETE FROM webhook_attempts a USING removed WHERE a.endpoint_id = removed.id)
      SELECT EXISTS (SELECT 1 FROM removed) AS removed`.execute(this.db);
    return result.rows[0]?.removed === true;
  }

  /** The new secret signs from now on; the current one keeps signing beside it until `previousUntil`. */
  async rotate(
    id: string,
    sealedSecret: string,
    sealedPrevious: string,
    previousUntil: Date,
  ): Promise<boolean> {
    const result = await this.db
      .updateTable('webhook_endpoints')
      .set({
        secret: sealedSecret,
        previous_secret: sealedPrevious,
        previous_secret_expires_at: previousUntil,
      })
      .where('id', '=', id)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /**
   * Disables or enables; enabling forgets the failing run, so the five days start again. What waits for a
   * disabled endpoint is parked (PARKED) and due again, at once, when it is enabled.
   */
  async setDisabled(id: string, disabled: boolean): Promise<boolean> {
    const result = disabled
      ? await sql<{ found: boolean }>`
          WITH endpoint AS (
            UPDATE webhook_endpoints SET disabled_at = now(), disabled_reason = 'operator' WHERE id = ${id}
            RETURNING id
          ),
            parked AS (${park(sql`SELECT id FROM endpoint`)})
          SELECT EXISTS (SELECT 1 FROM endpoint) AS found`.execute(this.db)
      : await sql<{ found: boolean }>`
          WITH endpoint AS (
            UPDATE webhook_endpoints SET disabled_at = NULL, disabled_reason = NULL, failing_since = NULL
            WHERE id = ${id} RETURNING id
          ), due AS (
            UPDATE webhook_deliveries SET next_attempt_at = now()
            WHERE endpoint_id = (SELECT id FROM endpoint) AND next_attempt_at = ${PARKED}
          )
          SELECT EXISTS (SELECT 1 FROM endpoint) AS found`.execute(this.db);
    return result.rows[0]?.found === true;
  }

  /** Disables the enabled endpoints failing since before `days` days ago, parking what waits; returns them. */
  async disableFailing(days: number): Promise<{ id: string; url: string; failing_since: Date }[]> {
    const result = await sql<{ id: string; url: string; failing_since: Date }>`
      WITH disabled AS (
        UPDATE webhook_endpoints SET disabled_at = now(), disabled_reason = 'failing'
        WHERE disabled_at IS NULL AND failing_since IS NOT NULL
          AND failing_since < now() - make_interval(days => ${days})
        RETURNING id, url, failing_since
      ), parked AS (${park(sql`SELECT id FROM disabled`)})
      SELECT * FROM disabled`.execute(this.db);
    return result.rows;
  }
}

/**
 * When a delivery to a disabled endpoint is due: never, until the endpoint is enabled. Otherwise every probe
 * for due deliveries would step over all of them (an endpoint disabled after five days of failures leaves
 * five days of events), every second, on every instance.
 */
export const PARKED = sql`'infinity'::timestamptz`;

/** Parks what waits, unclaimed, for the endpoints `ids` selects. */
export const park = (ids: ReturnType<typeof sql>) =>
  sql`UPDATE webhook_deliveries SET next_attempt_at = ${PARKED} WHERE endpoint_id IN (${ids}) AND lease IS NULL`;

/**
 * The `streak` step of recording a batch of attempts (`recorded`: the rows recorded, `outcome`: the batch): an
 * endpoint's row is written only when its failing streak starts or ends (any delivery of the batch that went
 * through ends it; failures alone start it).
 */
export const STREAK = sql`UPDATE webhook_endpoints w
  SET failing_since = CASE WHEN s.delivered THEN NULL ELSE now() END
  FROM (SELECT endpoint_id, bool_or(outcome = 'delivered') AS delivered FROM recorded GROUP BY endpoint_id) s
  WHERE w.id = s.endpoint_id AND (w.failing_since IS NULL) = NOT s.delivered`;

/**
 * STREAK for a batch in which a receiver answered 410 Gone: its endpoint is disabled too, and what waits for it
 * parked, at once. Only such a batch pays for these steps (every sign-up and login makes a batch).
 */
export const STREAK_OR_GONE = sql`UPDATE webhook_endpoints w
  SET failing_since = CASE WHEN s.delivered THEN NULL ELSE coalesce(w.failing_since, now()) END,
    disabled_at = CASE WHEN s.gone THEN coalesce(w.disabled_at, now()) ELSE w.disabled_at END,
    disabled_reason = CASE WHEN s.gone AND w.disabled_at IS NULL THEN 'gone' ELSE w.disabled_reason END
  FROM (
    SELECT r.endpoint_id, bool_or(r.outcome = 'delivered') AS delivered, bool_or(o.gone) AS gone
    FROM recorded r JOIN outcome o ON o.position = r.position GROUP BY r.endpoint_id
  ) s
  WHERE w.id = s.endpoint_id
    AND ((w.failing_since IS NULL) = NOT s.delivered OR (s.gone AND w.disabled_at IS NULL))
), parked AS (
  ${park(sql`SELECT o.endpoint_id FROM outcome o JOIN recorded r ON r.position = o.position WHERE o.gone`)}`;
