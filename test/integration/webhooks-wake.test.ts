import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { registerUser } from '../helpers/factories.js';
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

  it('delivers a burst larger than one claim in the pass that fans it out', async () => {
    const own = await WebhookReceiver.start();
    try {
      await addEndpoint(ctx, own.url);
      const db = ctx.database.handle.db;
      // Written before the wake: one pass fans all of them out, claims 40 and must send the rest too.
      const ids: string[] = [];
      for (let i = 0; i < 45; i++) ids.push(await emitDeleted(db));
      ctx.deliveryWake.wake();
      const received = await own.received(45);
      expect(received.map((request) => request.id).sort()).toEqual(ids.sort());
    } finally {
      await own.close();
    }
  });

  it('delivers the event of a write request at once: a successful write wakes the loop', async () => {
    // A receiver of its own: the earlier test's endpoint gets every event too, signed with its own secret.
    const own = await WebhookReceiver.start();
    const endpoint = await addEndpoint(ctx, own.url);
    own.secrets = [endpoint.secret];
    const user = await registerUser(ctx.app);
    // The tick is a minute away: only the register request's wake can deliver within the wait.
    const created = await vi.waitFor(
      () => {
        const found = own.requests.find(
          (request) => request.body.type === 'user.created' && request.body.data.id === user.id,
        );
        if (!found) throw new Error('user.created not delivered yet');
        return found;
      },
      { timeout: 15_000 },
    );
    expect(created.body.data).toMatchObject({ id: user.id, method: 'email' });
    expect(created.verifiedBy[0]).toBe(true);
    await own.close();
  });
});
