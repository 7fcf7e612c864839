import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WebhookDeliveriesRepo } from '../../src/modules/webhooks/deliveries-repo.js';
import { WebhookDelivery } from '../../src/modules/webhooks/delivery.js';
import { WebhookEndpointsRepo } from '../../src/modules/webhooks/endpoints-repo.js';
import { WebhookSecrets } from '../../src/modules/webhooks/secrets.js';
import { WebhookSender } from '../../src/modules/webhooks/sender.js';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { addEndpoint, emitDeleted, resetWebhooks } from '../helpers/webhooks.js';

const quietLog = { info: () => undefined, warn: () => undefined };

describe.each(backends)('%s: a claim’s lease', (backend) => {
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
  });

  it('lets go of what it cannot send inside the lease: due at once, and sent once by the next claim', async () => {
    const secretsKey = ctx.config.secondFactor.secretsKey;
    if (secretsKey === undefined) throw new Error('the test app sets SECRETS_KEY');
    // A 3 s lease and a 1 s timeout: rounds may start for the first 1.25 s; each waits 300 ms for the
    // receiver, so some of the 10 rounds a fan-out of 100 deliveries needs start, and not all.
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
    const waiting = await sql<{ leased: number; due: number; total: number }>`
      SELECT count(lease)::int AS leased, count(*) FILTER (WHERE next_attempt_at <= now())::int AS due,
        count(*)::int AS total
      FROM webhook_deliveries`.execute(db());
    expect(waiting.rows[0]).toEqual({ leased: 0, due: first.released, total: first.released });

    receiver.answer = () => 200;
    const rest = await ctx.webhookDelivery.deliver();
    expect(rest).toEqual({ sent: first.released, released: 0 });
    expect(receiver.requests.map((request) => request.id).sort()).toEqual(ids.sort());
    shortLease.close();
  });
});
