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
  const { webhookEndpoints } = buildWebhooks(app.config, { database: app.database.handle, log: quietLog });
  return webhookEndpoints.add({ url, ...(events ? { events } : {}) });
}

/** The operator's service on the app's database. */
export function endpointsOf(app: WebhookHarness) {
  return buildWebhooks(app.config, { database: app.database.handle, log: quietLog }).webhookEndpoints;
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
  await sql`UPDATE webhook_deliveries SET next_attempt_at = now() WHERE status = 'pending'`.execute(db);
}

/** A clean slate for a test: no endpoints (nor their deliveries), every earlier event dispatched. */
export async function resetWebhooks(db: Executor): Promise<void> {
  await sql`DELETE FROM webhook_endpoints`.execute(db);
  await sql`UPDATE account_events SET dispatched_at = now() WHERE dispatched_at IS NULL`.execute(db);
}

/** The delivery rows of an event. */
export async function deliveriesOf(db: Executor, eventId: string) {
  return db
    .selectFrom('webhook_deliveries')
    .select(['endpoint_id', 'status', 'attempts', 'last_status_code', 'last_error'])
    .where('event_id', '=', eventId)
    .execute();
}
