import { describe, expect, it } from 'vitest';
import { DevicesRepo } from '../../src/modules/devices/repo.js';
import { DevicesService } from '../../src/modules/devices/service.js';
import { NotificationOutboxRepo } from '../../src/modules/notifications/repo.js';
import { LogPushTransport } from '../../src/push/log-transport.js';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { registerUser, unique } from '../helpers/factories.js';
import { expectError, UNAUTHENTICATED } from '../helpers/http.js';
import {
  pushTokens,
  registerDevice,
  requestTestNotification,
  sendTestNotification,
} from '../helpers/push.js';

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

  it('drops a dead push token only from that device, and only while it is still the token that failed', async () => {
    const devices = new DevicesService(ctx.database.handle.db, new DevicesRepo(ctx.database.handle.db));
    const me = await registerUser(ctx.app);
    const other = await registerUser(ctx.app);
    const [dead, fresh, others] = [`fcm-${unique()}`, `fcm-${unique()}`, `fcm-${unique()}`];
    await registerDevice(ctx.app, me.token, { device_id: 'phone', push_token: dead });
    await registerDevice(ctx.app, other.token, { device_id: 'phone', push_token: others });
    // Not this user's device, or not this device: nothing changes.
    expect(await devices.dropPushToken(other.id, 'phone', dead)).toBe(false);
    expect(await devices.dropPushToken(me.id, 'tablet', dead)).toBe(false);
    // The app registered a new token after the push failed: the new one stays.
    await registerDevice(ctx.app, me.token, { device_id: 'phone', push_token: fresh });
    expect(await devices.dropPushToken(me.id, 'phone', dead)).toBe(false);
    expect(await pushTokens(ctx.app, me.token)).toEqual({ phone: fresh });
    expect(await devices.dropPushToken(me.id, 'phone', fresh)).toBe(true);
    expect(await pushTokens(ctx.app, me.token)).toEqual({ phone: null });
    expect(await pushTokens(ctx.app, other.token)).toEqual({ phone: others });
  });
});
