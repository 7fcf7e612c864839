import { sql } from 'kysely';
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

  /** Removes the endpoint and, by cascade, its deliveries; false when there was none. */
  /** Removes an endpoint, what waits for it (by the foreign key) and its attempts, in one statement. */
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

  /** Disables or enables; enabling forgets the failing run, so the five days start again. */
  async setDisabled(id: string, disabled: boolean): Promise<boolean> {
    const result = await this.db
      .updateTable('webhook_endpoints')
      .set(disabled ? { disabled_at: sql<Date>`now()` } : { disabled_at: null, failing_since: null })
      .where('id', '=', id)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** Disables the enabled endpoints failing since before `days` days ago; returns them. */
  async disableFailing(days: number): Promise<{ id: string; url: string; failing_since: Date }[]> {
    const result = await sql<{ id: string; url: string; failing_since: Date }>`
      UPDATE webhook_endpoints SET disabled_at = now()
      WHERE disabled_at IS NULL AND failing_since IS NOT NULL
        AND failing_since < now() - make_interval(days => ${days})
      RETURNING id, url, failing_since`.execute(this.db);
    return result.rows;
  }
}
