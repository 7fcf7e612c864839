import { sql } from 'kysely';
import type { Config } from '../../src/config.js';
import type { DatabaseHandle } from '../../src/db/client.js';
import type { Executor } from '../../src/db/transaction.js';
import { accountEvent, insertAccountEventQuery } from '../../src/modules/account-events/repo.js';
import type { AccountEventData, AccountEventType } from '../../src/modules/account-events/types.js';
import type { WebhookDelivery } from '../../src/modules/webhooks/delivery.js';
import type { AddedEndpoint } from '../../src/modules/webhooks/endpoints-service.js';
import { buildWebhooks } from '../../src/services/webhooks.js';

/** What a test of webhooks needs of an app: its config, its database and its delivery passes. */
export interface WebhookHarness {
  config: Config;
  database: { handle: DatabaseHandle };
  webhookDelivery: WebhookDelivery;
}

const quietLog = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** Adds an endpoint as `accounts webhook add` does, on the app's database and config. */
export function addEndpoint(app: WebhookHarness, url: string, events?: string[]): Promise<AddedEndpoint> {
  const { webhookEndpoints } = buildWebhooks({
    config: app.config,
    deps: { database: app.database.handle, log: quietLog },
  });
  return webhookEndpoints.add({ url, ...(events ? { events } : {}) });
}

/** The operator's service on the app's database. */
export function endpointsOf(app: WebhookHarness) {
  return buildWebhooks({ config: app.config, deps: { database: app.database.handle, log: quietLog } })
    .webhookEndpoints;
}

/** Writes an event as a change would (committed), and returns its id. */
export async function emit<T extends AccountEventType>(
  db: Executor,
  type: T,
  userId: string | null,
  data: AccountEventData[T],
): Promise<string> {
  const event = accountEvent(type, userId, data);
  await insertAccountEventQuery(db, event).execute();
  return event.id;
}

/** A `user.deleted` event of a made-up user. */
export function emitDeleted(db: Executor): Promise<string> {
  const id = crypto.randomUUID();
  return emit(db, 'user.deleted', id, { id });
}

/** One dispatch pass and one delivery pass. */
export async function pass(app: WebhookHarness): Promise<void> {
  await app.webhookDelivery.dispatch();
  await app.webhookDelivery.deliver();
}

/** Makes every pending delivery due now, as if its retry wait had passed (no sleeping in tests). */
export async function makeDue(db: Executor): Promise<void> {
  await sql`UPDATE webhook_deliveries SET next_attempt_at = now()`.execute(db);
}

/** A clean slate for a test: no endpoints (nor their deliveries and attempts), every earlier event dispatched. */
export async function resetWebhooks(db: Executor): Promise<void> {
  await sql`DELETE FROM webhook_endpoints`.execute(db);
  await sql`DELETE FROM webhook_attempts`.execute(db);
  await sql`UPDATE account_events SET dispatched_at = now() WHERE dispatched_at IS NULL`.execute(db);
}

/**
 * The deliveries of an event, one per endpoint, as the queue and the attempts tell them: `pending` while
 * the queue holds it, else how its latest attempt ended; the attempts made, and the latest one's answer.
 */
export async function deliveriesOf(db: Executor, eventId: string) {
  const result = await sql<{
    endpoint_id: string;
    status: 'pending' | 'delivered' | 'failed';
    attempts: number;
    last_status_code: number | null;
    last_error: string | null;
  }>`
    SELECT e.endpoint_id, CASE WHEN d.event_id IS NOT NULL THEN 'pending' ELSE latest.outcome END AS status,
      coalesce(d.attempts, latest.attempt) AS attempts, latest.status_code AS last_status_code,
      latest.error AS last_error
    FROM (SELECT endpoint_id FROM webhook_deliveries WHERE event_id = ${eventId}
      UNION SELECT endpoint_id FROM webhook_attempts WHERE event_id = ${eventId}) e
    LEFT JOIN webhook_deliveries d ON d.event_id = ${eventId} AND d.endpoint_id = e.endpoint_id
    LEFT JOIN LATERAL (
      SELECT a.attempt, a.outcome, a.status_code, a.error FROM webhook_attempts a
      WHERE a.event_id = ${eventId} AND a.endpoint_id = e.endpoint_id ORDER BY a.id DESC LIMIT 1
    ) latest ON true
    ORDER BY e.endpoint_id`.execute(db);
  return result.rows;
}
