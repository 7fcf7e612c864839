import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { addEndpoint, deliveriesOf, emitDeleted } from '../helpers/webhooks.js';

describe.each(backends)('%s: the delivery loop', (backend) => {
  // A tick a minute apart: only a wake can deliver within the test's time.
  const ctx = useTestApp(backend, { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_INTERVAL: '60s' });
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
  });
  afterAll(async () => {
    await receiver?.close();
  });

  it('delivers at once when woken after a commit that wrote events', async () => {
    const endpoint = await addEndpoint(ctx, receiver.url);
    receiver.secrets = [endpoint.secret];
    const db = ctx.database.handle.db;
    const first = await emitDeleted(db);
    ctx.deliveryWake.wake();
    // A burst of wakes while a pass runs makes one more pass after it, which takes the later events.
    const second = await emitDeleted(db);
    ctx.deliveryWake.wake();
    const third = await emitDeleted(db);
    ctx.deliveryWake.wake();

    const received = await receiver.received(3);
    expect(received.map((request) => request.id).sort()).toEqual([first, second, third].sort());
    expect(received.every((request) => request.verifiedBy[0] === true)).toBe(true);
    await ctx.backgroundIdle();
    expect(await deliveriesOf(db, third)).toMatchObject([{ status: 'delivered', attempts: 1 }]);
  });
});
