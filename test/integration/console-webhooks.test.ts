import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/database.js';
import { expectError, expectOk, expectValidationError } from '../helpers/http.js';
import { buildTestServices } from '../helpers/services.js';
import {
  enrolledStaff,
  type StaffSessionHeaders,
  signedInStaff,
  testClock,
  useConsoleApp,
} from '../helpers/staff.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { emit, pass, resetWebhooks } from '../helpers/webhooks.js';

const FORBIDDEN = ['AccessDeniedHttpException', 'This action is unauthorized.'] as const;

interface Added {
  id: string;
  url: string;
  events: string[] | null;
  secret: string;
}

interface Delivery {
  event_id: string;
  state: string;
  attempts: { attempt: number; outcome: string; status_code: number | null; at: string }[];
}

describe.each(backends)('%s: the admin API on webhooks', (backend) => {
  const clock = testClock();
  const ctx = useConsoleApp(backend, clock, { WEBHOOK_ALLOW_PRIVATE: 'true' });
  let receiver: WebhookReceiver;
  let admin: { id: string; headers: StaffSessionHeaders };

  beforeAll(async () => {
    await resetWebhooks(ctx.database.handle.db);
    receiver = await WebhookReceiver.start();
    const member = await enrolledStaff(ctx, clock, 'admin');
    admin = { id: member.id, headers: await signedInStaff(ctx, clock, member) };
  });
  afterAll(async () => {
    await receiver?.close();
  });

  const get = (url: string, headers = admin.headers) =>
    ctx.app.inject({ method: 'GET', url: `/admin/v1${url}`, headers });
  const post = (url: string, payload: Record<string, unknown>, headers = admin.headers) =>
    ctx.app.inject({ method: 'POST', url: `/admin/v1${url}`, headers, payload });
  const add = async (reason = 'the search index') => {
    const added = expectOk<Added>(await post('/webhooks', { url: receiver.url, reason }));
    receiver.secrets = [added.secret];
    return added;
  };
  /** The admin's access records of webhooks, oldest first, as [action, subject, reason, outcome, detail]. */
  const recorded = async () => {
    const { records } = await buildTestServices(ctx).accessRecords.page({ actor: admin.id }, 50);
    return records
      .filter((record) => record.action.startsWith('webhook.'))
      .reverse()
      .map((r) => [r.action, r.subjectId, r.reason, r.outcome, r.detail]);
  };

  it('answers only admin: every other role gets 403 on every webhook route', async () => {
    const { id } = await add();
    for (const role of ['viewer', 'support', 'content']) {
      const member = await enrolledStaff(ctx, clock, role);
      const headers = await signedInStaff(ctx, clock, member);
      expectError(await get('/webhooks', headers), 403, ...FORBIDDEN);
      expectError(await get(`/webhooks/${id}/deliveries`, headers), 403, ...FORBIDDEN);
      expectError(await post('/webhooks', { url: receiver.url, reason: 'r' }, headers), 403, ...FORBIDDEN);
      expectError(await post(`/webhooks/${id}/disable`, { reason: 'r' }, headers), 403, ...FORBIDDEN);
      expectError(
        await post(`/webhooks/${id}/deliveries/${id}/replay`, { reason: 'r' }, headers),
        403,
        ...FORBIDDEN,
      );
      // Each refused change is an access record, as the change would have been; a refused look is not.
      const { records } = await buildTestServices(ctx).accessRecords.page({ actor: member.id }, 50);
      expect(records.map((record) => [record.action, record.outcome, record.detail]).reverse()).toEqual(
        ['webhook.add', 'webhook.disable', 'webhook.replay'].map((action) => [
          action,
          'refused',
          { permission: 'webhooks.manage' },
        ]),
      );
    }
    const korean = await ctx.app.inject({ method: 'GET', url: '/console/webhooks?lang=ko' });
    expect(korean.body).toContain('<h1>웹훅</h1>');
    const { endpoints } = expectOk<{ endpoints: { id: string; disabled_at: string | null }[] }>(
      await get('/webhooks'),
    );
    expect(endpoints.find((endpoint) => endpoint.id === id)?.disabled_at).toBeNull();
  });

  it('adds an endpoint through the address guard, shows its secret once, and names the field it refuses', async () => {
    const before = (await recorded()).length;
    const added = await add('orders need sign-ups');
    expect(added).toEqual({ id: added.id, url: receiver.url, events: null, secret: expect.any(String) });
    expect(added.secret).toMatch(/^whsec_/);
    const { endpoints } = expectOk<{ endpoints: Record<string, unknown>[] }>(await get('/webhooks'));
    const listed = endpoints.find((endpoint) => endpoint.id === added.id);
    expect(listed).toEqual({
      id: added.id,
      url: receiver.url,
      description: null,
      events: null,
      created_at: expect.any(String),
      disabled_at: null,
      disabled_reason: null,
      failing_since: null,
    });

    expectValidationError(await post('/webhooks', { url: 'ftp://hooks.example.com/', reason: 'r' }), {
      url: [
        'The url cannot receive webhooks: ftp is not allowed: use https (http only with WEBHOOK_ALLOW_PRIVATE=true).',
      ],
    });
    expectValidationError(
      await post('/webhooks', { url: receiver.url, events: ['user.nope'], reason: 'r' }),
      {
        events: ['The selected events is invalid.'],
      },
    );
    expectValidationError(await post('/webhooks', { url: receiver.url }), {
      reason: ['The reason field is required.'],
    });
    // Nineteen digits would pass a digits-only check and overflow the ids' bigint in PostgreSQL: a 500.
    for (const cursor of ['x1', '9999999999999999999']) {
      expectValidationError(await get(`/webhooks/${added.id}/deliveries?cursor=${cursor}`), {
        cursor: ['The cursor format is invalid.'],
      });
    }
    const target = new URL(receiver.url).origin;
    expect((await recorded()).slice(before)).toEqual([
      ['webhook.add', null, 'orders need sign-ups', 'ok', { endpoint_id: added.id, target }],
      ['webhook.add', null, 'r', 'failed', { error: 'validation_failed' }],
    ]);
  });

  it('pages the deliveries with their attempts, and a replay redelivers to the receiver', async () => {
    await resetWebhooks(ctx.database.handle.db);
    const endpoint = await add();
    const db = ctx.database.handle.db;
    const owner = crypto.randomUUID();
    const first = await emit(db, 'user.deleted', owner, { id: owner });
    await pass(ctx);
    const second = await emit(db, 'user.deleted', owner, { id: owner });
    await pass(ctx);
    await receiver.received(2);

    const url = `/webhooks/${endpoint.id}/deliveries`;
    const page1 = expectOk<{ deliveries: Delivery[]; next_cursor: string }>(await get(`${url}?limit=1`));
    expect(page1.deliveries.map((d) => [d.event_id, d.state])).toEqual([[second, 'delivered']]);
    expect(page1.deliveries[0]?.attempts).toEqual([
      { attempt: 1, at: expect.any(String), outcome: 'delivered', status_code: 200, error: null },
    ]);
    const page2 = expectOk<{ deliveries: Delivery[]; next_cursor: string | null }>(
      await get(`${url}?limit=1&cursor=${page1.next_cursor}`),
    );
    expect(page2.deliveries.map((d) => d.event_id)).toEqual([first]);
    expect(page2.next_cursor).toBeNull();

    expect(expectOk(await post(`${url}/${first}/replay`, { reason: 'the receiver lost its queue' }))).toEqual(
      { event_id: first, endpoint_id: endpoint.id, queued: true },
    );
    const waiting = expectOk<{ deliveries: Delivery[] }>(await get(url));
    expect(waiting.deliveries.find((d) => d.event_id === first)?.state).toBe('waiting');
    await pass(ctx);
    const [once, again] = receiver.of(first);
    expect(again?.id).toBe(once?.id);
    expect(again?.verifiedBy).toEqual([true]);
    const after = expectOk<{ deliveries: Delivery[] }>(await get(url));
    expect(after.deliveries.map((d) => [d.event_id, d.state, d.attempts.length])).toEqual([
      [first, 'delivered', 2],
      [second, 'delivered', 1],
    ]);

    const unknown = crypto.randomUUID();
    expect((await post(`${url}/${unknown}/replay`, { reason: 'r' })).statusCode).toBe(404);
    const replays = (await recorded()).filter(([action]) => action === 'webhook.replay');
    expect(replays).toEqual([
      [
        'webhook.replay',
        owner,
        'the receiver lost its queue',
        'ok',
        { endpoint_id: endpoint.id, event_id: first },
      ],
      ['webhook.replay', null, 'r', 'failed', { error: 'not_found' }],
    ]);
  });

  it('disables, enables, rotates the secret of and removes an endpoint, each recorded with its reason', async () => {
    const { id, secret } = await add();
    const before = (await recorded()).length;
    expect(expectOk(await post(`/webhooks/${id}/disable`, { reason: 'receiver down' }))).toEqual({
      id,
      disabled: true,
    });
    const listed = async () =>
      expectOk<{ endpoints: { id: string; disabled_reason: string | null }[] }>(
        await get('/webhooks'),
      ).endpoints.find((endpoint) => endpoint.id === id);
    expect((await listed())?.disabled_reason).toBe('operator');
    expectOk(await post(`/webhooks/${id}/enable`, { reason: 'receiver back' }));
    expect((await listed())?.disabled_reason).toBeNull();
    const rotated = expectOk<{ secret: string; previous_until: string }>(
      await post(`/webhooks/${id}/rotate-secret`, { reason: 'secret leaked' }),
    );
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(secret);
    expect(expectOk(await post(`/webhooks/${id}/remove`, { reason: 'retired' }))).toEqual({ removed: true });
    expect(await listed()).toBeUndefined();
    expect((await post(`/webhooks/${id}/remove`, { reason: 'again' })).statusCode).toBe(404);
    const detail = { endpoint_id: id };
    expect((await recorded()).slice(before)).toEqual([
      ['webhook.disable', null, 'receiver down', 'ok', detail],
      ['webhook.enable', null, 'receiver back', 'ok', detail],
      ['webhook.rotate_secret', null, 'secret leaked', 'ok', detail],
      ['webhook.remove', null, 'retired', 'ok', detail],
      ['webhook.remove', null, 'again', 'failed', { error: 'not_found' }],
    ]);
  });
});
