import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { buildWebhooks } from '../../src/services/webhooks.js';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { scrape, total } from '../helpers/metrics.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import {
  addEndpoint,
  deliveriesOf,
  emitDeleted,
  endpointsOf,
  pass,
  resetWebhooks,
} from '../helpers/webhooks.js';

describe.each(backends)('%s: operating webhooks', (backend) => {
  const ctx = useTestApp(backend, { WEBHOOK_ALLOW_PRIVATE: 'true' });
  let receiver: WebhookReceiver;
  const db = () => ctx.database.handle.db;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
  });
  afterAll(async () => {
    await receiver?.close();
  });
  beforeEach(async () => {
    await resetWebhooks(db());
    receiver.requests.length = 0;
    receiver.answer = () => 200;
  });

  it('does not follow a redirect: a 3xx is a failed attempt, retried later', async () => {
    const elsewhere = await WebhookReceiver.start();
    try {
      receiver.answer = () => (response) => response.writeHead(307, { location: elsewhere.url }).end();
      await addEndpoint(ctx, receiver.url);
      const eventId = await emitDeleted(db());
      await pass(ctx);
      expect(receiver.requests).toHaveLength(1);
      expect(elsewhere.requests).toEqual([]);
      expect(await deliveriesOf(db(), eventId)).toMatchObject([
        { status: 'pending', attempts: 1, last_status_code: 307, last_error: 'HTTP 307' },
      ]);
    } finally {
      await elsewhere.close();
    }
  });

  it('reads at most 64 KB of an answer: an endless 200 is delivered, not timed out', async () => {
    receiver.answer = () => (response) => {
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(16 * 1024, 1);
      // Writes until the client hangs up: a receiver that would never stop.
      const write = () => {
        while (!response.destroyed && response.write(chunk));
        if (!response.destroyed) response.once('drain', write);
      };
      response.on('close', () => response.removeAllListeners('drain'));
      write();
    };
    await addEndpoint(ctx, receiver.url);
    const eventId = await emitDeleted(db());
    await pass(ctx);
    expect(await deliveriesOf(db(), eventId)).toMatchObject([{ status: 'delivered', last_status_code: 200 }]);
  });

  it('purges events past EVENT_RETENTION_DAYS none of whose deliveries is pending', async () => {
    await addEndpoint(ctx, receiver.url);
    const delivered = await emitDeleted(db());
    await pass(ctx);
    receiver.answer = () => 503;
    const pending = await emitDeleted(db());
    await pass(ctx);
    const recent = await emitDeleted(db());
    await pass(ctx);
    await sql`UPDATE account_events SET occurred_at = now() - interval '31 days'
      WHERE id IN (${delivered}, ${pending})`.execute(db());

    await ctx.webhookDelivery.maintain();
    const left = await db()
      .selectFrom('account_events')
      .select('id')
      .where('id', 'in', [delivered, pending, recent])
      .execute();
    expect(left.map((row) => row.id).sort()).toEqual([pending, recent].sort());
    expect(await deliveriesOf(db(), delivered)).toEqual([]);
  });

  it('removes with an endpoint what waits for it and the attempts made to it', async () => {
    const kept = await addEndpoint(ctx, receiver.url);
    const removed = await addEndpoint(ctx, receiver.url);
    receiver.answer = () => 503;
    const eventId = await emitDeleted(db());
    await pass(ctx);
    expect(await deliveriesOf(db(), eventId)).toHaveLength(2);

    await endpointsOf(ctx).remove(removed.id);
    expect(await deliveriesOf(db(), eventId)).toMatchObject([
      { endpoint_id: kept.id, status: 'pending', last_status_code: 503 },
    ]);
    expect(await endpointsOf(ctx).attempts({ failed: false })).toMatchObject([{ endpoint_id: kept.id }]);
  });

  it('parks what waits for a disabled endpoint, out of every probe, and sends it once enabled', async () => {
    const endpoint = await addEndpoint(ctx, receiver.url);
    receiver.answer = () => 503;
    const eventId = await emitDeleted(db());
    await pass(ctx);
    await endpointsOf(ctx).setDisabled(endpoint.id, true);
    // Not due, whatever its retry wait: no probe steps over it.
    const parked = await sql<{ parked: boolean }>`
      SELECT next_attempt_at = 'infinity' AS parked FROM webhook_deliveries WHERE event_id = ${eventId}`.execute(
      db(),
    );
    expect(parked.rows).toEqual([{ parked: true }]);
    expect(await ctx.webhookDelivery.work()).toEqual({ undispatched: false, due: false });

    receiver.answer = () => 200;
    await endpointsOf(ctx).setDisabled(endpoint.id, false);
    expect(await ctx.webhookDelivery.work()).toEqual({ undispatched: false, due: true });
    await pass(ctx);
    expect(await deliveriesOf(db(), eventId)).toMatchObject([{ status: 'delivered', attempts: 2 }]);
  });

  it('disables an endpoint whose receiver answers 410, parks what waits for it, and sends it once enabled', async () => {
    const warnings: string[] = [];
    const log = {
      info: () => undefined,
      warn: (_: object, line: string) => void warnings.push(line),
      error: () => undefined,
    };
    const { webhookDelivery } = buildWebhooks({
      config: ctx.config,
      deps: { database: ctx.database.handle, log },
    });
    const other = await WebhookReceiver.start();
    try {
      const gone = await addEndpoint(ctx, receiver.url);
      await addEndpoint(ctx, other.url);
      receiver.answer = () => 503;
      const waiting = await emitDeleted(db());
      await webhookDelivery.dispatch();
      receiver.answer = () => 410;
      const answered = await emitDeleted(db());
      await webhookDelivery.dispatch();

      expect(warnings).toEqual(['webhook endpoint disabled: receiver answered 410']);
      expect((await endpointsOf(ctx).list()).find((endpoint) => endpoint.id === gone.id)).toMatchObject({
        disabled_at: expect.any(String),
        disabled_reason: 'gone',
      });
      // Both wait, parked (the one answered 410 and the one waiting for its retry), out of every probe.
      const parked = await sql<{ event_id: string; parked: boolean }>`
        SELECT event_id, next_attempt_at = 'infinity' AS parked FROM webhook_deliveries
        WHERE endpoint_id = ${gone.id} ORDER BY event_id`.execute(db());
      expect(parked.rows).toEqual(
        [waiting, answered].sort().map((eventId) => ({ event_id: eventId, parked: true })),
      );
      expect(await deliveriesOf(db(), answered)).toContainEqual({
        endpoint_id: gone.id,
        status: 'pending',
        attempts: 1,
        last_status_code: 410,
        last_error: 'HTTP 410',
      });
      // The other endpoint is not touched; the gone one gets no new events.
      const later = await emitDeleted(db());
      await pass(ctx);
      expect(other.of(later)).toHaveLength(1);
      expect(receiver.of(later)).toEqual([]);
      expect(await ctx.webhookDelivery.work()).toEqual({ undispatched: false, due: false });

      receiver.answer = () => 200;
      await endpointsOf(ctx).setDisabled(gone.id, false);
      expect((await endpointsOf(ctx).list()).find((endpoint) => endpoint.id === gone.id)).toMatchObject({
        disabled_at: null,
        disabled_reason: null,
      });
      await pass(ctx);
      expect(receiver.of(waiting)).toHaveLength(2);
      expect(receiver.of(answered)).toHaveLength(2);
      expect(await deliveriesOf(db(), answered)).toContainEqual(
        expect.objectContaining({ endpoint_id: gone.id, status: 'delivered', attempts: 2 }),
      );
    } finally {
      await webhookDelivery.close();
      await other.close();
    }
  });

  it('disables an endpoint failing for five days, with a warning line', async () => {
    const warnings: string[] = [];
    const log = {
      info: () => undefined,
      warn: (_: object, line: string) => void warnings.push(line),
      error: () => undefined,
    };
    const { webhookDelivery } = buildWebhooks({
      config: ctx.config,
      deps: { database: ctx.database.handle, log },
    });
    const failing = await addEndpoint(ctx, receiver.url);
    const recovering = await addEndpoint(ctx, receiver.url);
    await sql`UPDATE webhook_endpoints SET failing_since = now() - interval '5 days 1 minute' WHERE id = ${failing.id}`.execute(
      db(),
    );
    await sql`UPDATE webhook_endpoints SET failing_since = now() - interval '4 days' WHERE id = ${recovering.id}`.execute(
      db(),
    );

    await webhookDelivery.maintain();
    const rows = await db().selectFrom('webhook_endpoints').select(['id', 'disabled_at']).execute();
    expect(rows.find((row) => row.id === failing.id)?.disabled_at).toBeInstanceOf(Date);
    expect(rows.find((row) => row.id === recovering.id)?.disabled_at).toBeNull();
    expect((await endpointsOf(ctx).list()).find((row) => row.id === failing.id)?.disabled_reason).toBe(
      'failing',
    );
    expect(warnings).toEqual(['webhook endpoint disabled: failing for 5 days']);

    // A success ends the failing run.
    await emitDeleted(db());
    await pass(ctx);
    const after = await db()
      .selectFrom('webhook_endpoints')
      .select('failing_since')
      .where('id', '=', recovering.id)
      .executeTakeFirstOrThrow();
    expect(after.failing_since).toBeNull();
  });

  it('counts deliveries by endpoint and outcome, and shows the queue', async () => {
    const endpoint = await addEndpoint(ctx, receiver.url);
    receiver.answer = () => 500;
    await emitDeleted(db());
    await pass(ctx);
    // The delivery loop reads the queue every 15 s; the test's app runs no loop, so it reads it now.
    await ctx.webhookDelivery.readBacklog();
    const samples = await scrape(ctx.app);
    expect(total(samples, 'webhook_deliveries_total', { endpoint: endpoint.id, outcome: 'retry' })).toBe(1);
    expect(total(samples, 'webhook_queue_depth')).toBe(1);
    expect(total(samples, 'webhook_oldest_undelivered_seconds')).toBeGreaterThanOrEqual(0);
    receiver.answer = () => 200;
    await sql`UPDATE webhook_deliveries SET next_attempt_at = now()`.execute(db());
    await pass(ctx);
    await ctx.webhookDelivery.readBacklog();
    const later = await scrape(ctx.app);
    expect(total(later, 'webhook_deliveries_total', { endpoint: endpoint.id, outcome: 'delivered' })).toBe(1);
    expect(total(later, 'webhook_queue_depth')).toBe(0);
  });
});

describe.each(backends.filter((backend) => backend === 'postgres'))('%s: two instances', (backend) => {
  const ctx = useTestApp(backend, { WEBHOOK_ALLOW_PRIVATE: 'true' });

  it('deliver each event exactly once', async () => {
    const receiver = await WebhookReceiver.start();
    const other = await openDatabase({ url: ctx.database.url, embeddedDir: '', poolMax: 10 });
    try {
      const log = { info: () => undefined, warn: () => undefined, error: () => undefined };
      const second = buildWebhooks({ config: ctx.config, deps: { database: other, log } }).webhookDelivery;
      await addEndpoint(ctx, receiver.url);
      const ids: string[] = [];
      // More events than one fan-out takes: both instances can fan out a share, and claim what is due.
      for (let i = 0; i < 150; i++) ids.push(await emitDeleted(ctx.database.handle.db));
      const instances = [ctx.webhookDelivery, second];
      const fannedOut = await Promise.all(instances.map((instance) => instance.dispatch()));
      const delivered = await Promise.all(instances.map((instance) => instance.deliver()));

      // How the 150 split between them is up to timing; together they sent each once.
      const sent = [...fannedOut, ...delivered].map((batch) => batch.sent);
      expect(sent.reduce((sum, count) => sum + count, 0)).toBe(150);
      expect(receiver.requests.map((request) => request.id).sort()).toEqual(ids.sort());
    } finally {
      await other.close();
      await receiver.close();
    }
  });
});
