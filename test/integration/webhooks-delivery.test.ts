import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WebhookDeliveriesRepo } from '../../src/modules/webhooks/deliveries-repo.js';
import { WebhookDelivery } from '../../src/modules/webhooks/delivery.js';
import { WebhookEndpointsRepo } from '../../src/modules/webhooks/endpoints-repo.js';
import { WebhookSecrets } from '../../src/modules/webhooks/secrets.js';
import { WebhookSender } from '../../src/modules/webhooks/sender.js';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { QueryRecorder } from '../helpers/query-recorder.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import {
  addEndpoint,
  deliveriesOf,
  emit,
  emitDeleted,
  endpointsOf,
  makeDue,
  pass,
  resetWebhooks,
} from '../helpers/webhooks.js';

const quietLog = { info: () => undefined, warn: () => undefined };

describe.each(backends)('%s: webhook delivery', (backend) => {
  // Retries far enough ahead that a slow machine never makes one due by itself: tests make them due.
  const ctx = useTestApp(backend, { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE: '30s,30s' });
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

  it('delivers an event once, signed by Standard Webhooks, with the event id as webhook-id', async () => {
    const endpoint = await addEndpoint(ctx, receiver.url);
    receiver.secrets = [endpoint.secret];
    const userId = crypto.randomUUID();
    const eventId = await emit(db(), 'user.email_verified', userId, { id: userId, email: 'a@example.com' });
    await pass(ctx);
    await pass(ctx);

    expect(receiver.requests).toHaveLength(1);
    const [request] = receiver.requests;
    expect(request?.id).toBe(eventId);
    expect(request?.verifiedBy).toEqual([true]);
    expect(request?.signature).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
    const occurred = await db()
      .selectFrom('account_events')
      .select('occurred_at')
      .where('id', '=', eventId)
      .executeTakeFirstOrThrow();
    expect(request?.body).toEqual({
      type: 'user.email_verified',
      timestamp: occurred.occurred_at.toISOString(),
      data: { id: userId, email: 'a@example.com' },
    });
    expect(await deliveriesOf(db(), eventId)).toEqual([
      { endpoint_id: endpoint.id, status: 'delivered', attempts: 1, last_status_code: 200, last_error: null },
    ]);
  });

  it('sends the same webhook-id again after a 503 until the receiver answers 200', async () => {
    const endpoint = await addEndpoint(ctx, receiver.url);
    receiver.secrets = [endpoint.secret];
    let answered = 0;
    receiver.answer = () => (++answered < 3 ? 503 : 200);
    const eventId = await emitDeleted(db());

    await pass(ctx);
    expect(await deliveriesOf(db(), eventId)).toMatchObject([
      { status: 'pending', attempts: 1, last_status_code: 503, last_error: 'HTTP 503' },
    ]);
    // Not due yet: the schedule's wait lies ahead.
    await pass(ctx);
    expect(receiver.requests).toHaveLength(1);
    await makeDue(db());
    await pass(ctx);
    await makeDue(db());
    await pass(ctx);

    expect(receiver.requests.map((request) => [request.id, request.verifiedBy])).toEqual([
      [eventId, [true]],
      [eventId, [true]],
      [eventId, [true]],
    ]);
    expect(await deliveriesOf(db(), eventId)).toMatchObject([{ status: 'delivered', attempts: 3 }]);
    const attempts = await endpointsOf(ctx).attempts({ endpointId: endpoint.id, failed: true });
    expect(
      attempts.map((attempt) => [attempt.event_id, attempt.attempt, attempt.status_code, attempt.outcome]),
    ).toEqual([
      [eventId, 2, 503, 'retry'],
      [eventId, 1, 503, 'retry'],
    ]);
  });

  it('marks a delivery failed after the last retry of the schedule, and a refused connection is retried', async () => {
    const closed = await WebhookReceiver.start();
    const url = closed.url;
    await closed.close();
    await addEndpoint(ctx, url);
    const eventId = await emitDeleted(db());
    await pass(ctx);
    const [first] = await deliveriesOf(db(), eventId);
    expect(first).toMatchObject({ status: 'pending', attempts: 1, last_status_code: null });
    expect(first?.last_error).toBe('ECONNREFUSED');
    await makeDue(db());
    await pass(ctx);
    await makeDue(db());
    await pass(ctx);
    // Two waits: the first attempt and two retries, then failed.
    expect(await deliveriesOf(db(), eventId)).toMatchObject([{ status: 'failed', attempts: 3 }]);
  });

  it('signs with the old and the new secret for a day after a rotation, then with the new one', async () => {
    const endpoint = await addEndpoint(ctx, receiver.url);
    const rotated = await endpointsOf(ctx).rotateSecret(endpoint.id);
    expect(rotated.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    receiver.secrets = [endpoint.secret, rotated.secret];
    await emitDeleted(db());
    await pass(ctx);
    expect(receiver.requests[0]?.verifiedBy).toEqual([true, true]);
    expect(receiver.requests[0]?.signature.split(' ')).toHaveLength(2);

    await sql`UPDATE webhook_endpoints SET previous_secret_expires_at = now() - interval '1 second'`.execute(
      db(),
    );
    await emitDeleted(db());
    await pass(ctx);
    expect(receiver.requests[1]?.verifiedBy).toEqual([false, true]);
  });

  it('replays an event, and an endpoint’s events since a time, with the same webhook-id', async () => {
    const endpoint = await addEndpoint(ctx, receiver.url);
    const first = await emitDeleted(db());
    const second = await emitDeleted(db());
    await pass(ctx);
    expect(receiver.requests).toHaveLength(2);

    expect(await endpointsOf(ctx).replayEvent(first)).toEqual([endpoint.id]);
    await pass(ctx);
    expect(receiver.of(first)).toHaveLength(2);
    expect(receiver.of(second)).toHaveLength(1);

    // Since the first of this test's events (the database's clock, not this process's).
    const { occurred_at: since } = await db()
      .selectFrom('account_events')
      .select('occurred_at')
      .where('id', '=', first)
      .executeTakeFirstOrThrow();
    expect(await endpointsOf(ctx).replaySince(endpoint.id, since)).toBe(2);
    await pass(ctx);
    expect(receiver.of(first)).toHaveLength(3);
    expect(receiver.of(second)).toHaveLength(2);
    await expect(endpointsOf(ctx).replayEvent(crypto.randomUUID())).rejects.toThrow(/not found/);
  });

  it('sends an endpoint only the types it subscribed to, and nothing while it is disabled', async () => {
    const deletions = await addEndpoint(ctx, receiver.url, ['user.deleted']);
    const userId = crypto.randomUUID();
    await emit(db(), 'user.deletion_cancelled', userId, { id: userId });
    const deleted = await emitDeleted(db());
    await pass(ctx);
    expect(receiver.requests.map((request) => request.id)).toEqual([deleted]);

    await endpointsOf(ctx).setDisabled(deletions.id, true);
    const whileDisabled = await emitDeleted(db());
    await pass(ctx);
    expect(receiver.requests).toHaveLength(1);
    // Events written while it was disabled are not queued for it; a replay sends one on purpose.
    await endpointsOf(ctx).setDisabled(deletions.id, false);
    await pass(ctx);
    expect(receiver.of(whileDisabled)).toEqual([]);
  });

  it('lets go of what it cannot send inside the lease: due at once, and sent once by the next claim', async () => {
    const secretsKey = ctx.config.secondFactor.secretsKey;
    if (secretsKey === undefined) throw new Error('the test app sets SECRETS_KEY');
    // A 3 s lease and a 1 s timeout: attempts may start for the first 1.25 s; each waits 300 ms for the
    // receiver and the endpoint has 4 slots, so some of a fan-out's 100 deliveries start, and not all.
    const shortLease = new WebhookDelivery({
      deliveries: new WebhookDeliveriesRepo(db()),
      endpoints: new WebhookEndpointsRepo(db()),
      secrets: new WebhookSecrets(secretsKey),
      sender: new WebhookSender(true, undefined, 1000),
      retryScheduleMs: [1000],
      retentionDays: 30,
      log: quietLog,
      leaseSeconds: 3,
    });
    receiver.answer = () => (response) => setTimeout(() => response.writeHead(200).end(), 300);
    await addEndpoint(ctx, receiver.url);
    const ids: string[] = [];
    for (let i = 0; i < 100; i++) ids.push(await emitDeleted(db()));

    const first = await shortLease.dispatch();
    expect(first.sent).toBeGreaterThan(0);
    expect(first.released).toBeGreaterThan(0);
    expect(first.sent + first.released).toBe(100);
    expect(receiver.requests).toHaveLength(first.sent);
    // What was attempted left the queue, or waits for its retry if the machine was too slow for the 1 s.
    const waiting = await sql<{ leased: number; due: number; total: number; retried: number }>`
      SELECT count(lease)::int AS leased, count(*) FILTER (WHERE next_attempt_at <= now())::int AS due,
        count(*)::int AS total, (SELECT count(*) FROM webhook_attempts WHERE outcome = 'retry')::int AS retried
      FROM webhook_deliveries`.execute(db());
    const { retried = 0 } = waiting.rows[0] ?? {};
    expect(waiting.rows[0]).toEqual({
      leased: 0,
      due: first.released,
      total: first.released + retried,
      retried,
    });

    receiver.answer = () => 200;
    const rest = await ctx.webhookDelivery.deliver();
    expect(rest).toEqual({ sent: first.released, released: 0 });
    expect(receiver.requests.map((request) => request.id).sort()).toEqual(ids.sort());
    await shortLease.close();
  });

  it('records a fan-out’s outcomes as they end, in a few statements rather than one per delivery', async () => {
    const secretsKey = ctx.config.secondFactor.secretsKey;
    if (secretsKey === undefined) throw new Error('the test app sets SECRETS_KEY');
    const recorder = new QueryRecorder();
    const counted = db().withPlugin(recorder);
    const delivery = new WebhookDelivery({
      deliveries: new WebhookDeliveriesRepo(counted),
      endpoints: new WebhookEndpointsRepo(counted),
      secrets: new WebhookSecrets(secretsKey),
      sender: new WebhookSender(true),
      retryScheduleMs: [1000],
      retentionDays: 30,
      log: quietLog,
    });
    await addEndpoint(ctx, receiver.url);
    const ids: string[] = [];
    for (let i = 0; i < 100; i++) ids.push(await emitDeleted(db()));

    expect(await delivery.dispatch()).toEqual({ sent: 100, released: 0 });
    // One fan-out, and the outcomes that ended close together recorded together: far fewer statements than
    // deliveries, however slow the machine.
    expect(recorder.count).toBeLessThanOrEqual(25);
    expect(receiver.requests.map((request) => request.id).sort()).toEqual(ids.sort());
    const left = await sql<{ count: number }>`SELECT count(*)::int AS count FROM webhook_deliveries`.execute(
      db(),
    );
    expect(left.rows).toEqual([{ count: 0 }]);
    await delivery.close();
  });
});
