import { describe, expect, it } from 'vitest';
import { NotificationOutboxRepo } from '../../src/modules/notifications/repo.js';
import { LogPushTransport } from '../../src/push/log-transport.js';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { registerUser, unique } from '../helpers/factories.js';
import { expectError, UNAUTHENTICATED } from '../helpers/http.js';
import { registerDevice, requestTestNotification, sendTestNotification } from '../helpers/push.js';

describe.each(backends)('%s: test/notification with the log transport', (backend) => {
  const ctx = useTestApp(backend);

  const outboxRows = (userId: string) =>
    ctx.database.handle.db
      .selectFrom('notification_outbox')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();

  it('answers an empty list for a user without devices, and records nothing', async () => {
    const me = await registerUser(ctx.app);
    expect(await sendTestNotification(ctx.app, me.token)).toEqual([]);
    expect(await outboxRows(me.id)).toEqual([]);
  });

  it('skips a device without a push token and one with notifications turned off', async () => {
    const me = await registerUser(ctx.app);
    await registerDevice(ctx.app, me.token, { device_id: 'no-token', platform: 'web' });
    await registerDevice(ctx.app, me.token, {
      device_id: 'muted',
      push_token: `fcm-${unique()}`,
      push_enabled: 'false',
    });
    const deliveries = await sendTestNotification(ctx.app, me.token);
    expect(deliveries).toHaveLength(2);
    expect(deliveries).toEqual(
      expect.arrayContaining([
        { device_id: 'no-token', status: 'skipped', error: 'The device has no push token.' },
        { device_id: 'muted', status: 'skipped', error: 'Notifications are turned off on this device.' },
      ]),
    );
    expect(await outboxRows(me.id)).toEqual([]);
  });

  it('records one outbox row per device it sends to, and reports them sent', async () => {
    const me = await registerUser(ctx.app);
    const tokens = { phone: `fcm-${unique()}`, tablet: `fcm-${unique()}` };
    await registerDevice(ctx.app, me.token, { device_id: 'phone', push_token: tokens.phone });
    await registerDevice(ctx.app, me.token, { device_id: 'tablet', push_token: tokens.tablet });
    await registerDevice(ctx.app, me.token, { device_id: 'laptop' });
    const deliveries = await sendTestNotification(ctx.app, me.token);
    expect(deliveries).toHaveLength(3);
    expect(deliveries).toEqual(
      expect.arrayContaining([
        { device_id: 'phone', status: 'sent', error: null },
        { device_id: 'tablet', status: 'sent', error: null },
        { device_id: 'laptop', status: 'skipped', error: 'The device has no push token.' },
      ]),
    );

    const rows = await outboxRows(me.id);
    expect(rows.map((row) => row.device_id).sort()).toEqual(['phone', 'tablet']);
    for (const row of rows) {
      expect(row).toMatchObject({ status: 'sent', error: null });
      expect(row.payload).toEqual({
        title: 'Test notification',
        body: 'Push notifications reach this device.',
        data: { type: 'test_notification', sent_at: expect.any(String) },
      });
      // The outbox names the device, never its push token.
      expect(JSON.stringify(row)).not.toContain(tokens.phone);
      expect(JSON.stringify(row)).not.toContain(tokens.tablet);
    }
    // Another user's outbox is untouched.
    expect(await outboxRows((await registerUser(ctx.app)).id)).toEqual([]);
  });

  it('answers GET the same as POST, under every version, one outbox row per send', async () => {
    const me = await registerUser(ctx.app);
    await registerDevice(ctx.app, me.token, { device_id: 'phone', push_token: `fcm-${unique()}` });
    const sent = [{ device_id: 'phone', status: 'sent', error: null }];
    expect(await sendTestNotification(ctx.app, me.token, { method: 'GET', version: 'dev' })).toEqual(sent);
    expect(await sendTestNotification(ctx.app, me.token, { method: 'POST', version: 'dev' })).toEqual(sent);
    expect(await sendTestNotification(ctx.app, me.token, { method: 'GET' })).toEqual(sent);
    expect(await outboxRows(me.id)).toHaveLength(3);
  });

  it('writes the message in Korean when the client prefers it', async () => {
    const me = await registerUser(ctx.app);
    await registerDevice(ctx.app, me.token, { device_id: 'phone', push_token: `fcm-${unique()}` });
    await sendTestNotification(ctx.app, me.token, {
      headers: { 'accept-language': 'ko-KR,ko;q=0.9,en;q=0.5' },
    });
    const [row] = await outboxRows(me.id);
    expect(row?.payload).toMatchObject({
      title: '테스트 알림',
      body: '이 기기로 푸시 알림이 잘 도착합니다.',
    });
  });

  it('is a 401 without a token, with an unknown one and with a revoked one, and sends nothing', async () => {
    const me = await registerUser(ctx.app);
    await registerDevice(ctx.app, me.token, { device_id: 'phone', push_token: `fcm-${unique()}` });
    for (const method of ['GET', 'POST'] as const) {
      for (const token of [undefined, 'garbage-token']) {
        expectError(await requestTestNotification(ctx.app, token, { method }), 401, ...UNAUTHENTICATED);
      }
    }
    expect(await outboxRows(me.id)).toEqual([]);
    await ctx.app.inject({
      method: 'POST',
      url: '/v1/auth/logout',
      headers: { authorization: `Bearer ${me.token}` },
    });
    expectError(await requestTestNotification(ctx.app, me.token), 401, ...UNAUTHENTICATED);
  });

  it('logs each recorded push with the device and at most a short prefix of its token', async () => {
    const lines: { details: Record<string, unknown>; message: string }[] = [];
    const collect = (details: object, message: string) =>
      lines.push({ details: details as Record<string, unknown>, message });
    const transport = new LogPushTransport(new NotificationOutboxRepo(ctx.database.handle.db), {
      info: collect,
      warn: collect,
      error: collect,
    });
    const me = await registerUser(ctx.app);
    const pushToken = `fcm-${unique()}-${'x'.repeat(40)}`;
    const payload = { title: 'Hello', body: 'World', data: { type: 'test_notification' } };
    expect(await transport.send({ userId: me.id, deviceId: 'phone', pushToken, payload })).toEqual({
      status: 'sent',
    });
    expect(lines).toEqual([
      {
        message: 'push recorded (log transport)',
        details: { userId: me.id, deviceId: 'phone', pushToken: `${pushToken.slice(0, 6)}…`, title: 'Hello' },
      },
    ]);
    expect(await outboxRows(me.id)).toEqual([
      expect.objectContaining({ device_id: 'phone', payload, status: 'sent', error: null }),
    ]);
  });
});
