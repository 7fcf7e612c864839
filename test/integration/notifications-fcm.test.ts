import { describe, expect, it } from 'vitest';
import { backends } from '../helpers/database.js';
import { registerUser, unique } from '../helpers/factories.js';
import {
  type Delivery,
  pushTokens,
  registerDevice,
  sendTestNotification,
  useFcmApp,
} from '../helpers/push.js';

describe.each(backends)('%s: test/notification over FCM HTTP v1 (fake FCM on 127.0.0.1)', (backend) => {
  const ctx = useFcmApp(backend);

  /** A user with one device per name, each with a fresh push token. */
  async function userWithDevices(...names: string[]) {
    const user = await registerUser(ctx.app);
    const tokens: Record<string, string> = {};
    for (const name of names) {
      tokens[name] = `fcm-${name}-${unique()}`;
      await registerDevice(ctx.app, user.token, { device_id: name, push_token: tokens[name] });
    }
    return { user, tokens };
  }

  const byDevice = (deliveries: Delivery[]) =>
    Object.fromEntries(deliveries.map((delivery) => [delivery.device_id, delivery]));

  it('delivers the test message to each device with a push token', async () => {
    const { user, tokens } = await userWithDevices('phone', 'tablet');
    await registerDevice(ctx.app, user.token, { device_id: 'laptop' });
    const deliveries = byDevice(await sendTestNotification(ctx.app, user.token));
    expect(deliveries).toEqual({
      phone: { device_id: 'phone', status: 'sent', error: null },
      tablet: { device_id: 'tablet', status: 'sent', error: null },
      laptop: { device_id: 'laptop', status: 'skipped', error: 'The device has no push token.' },
    });
    for (const pushToken of [tokens.phone, tokens.tablet]) {
      expect(ctx.fcm.messages.filter((message) => message.token === pushToken)).toEqual([
        {
          token: pushToken,
          notification: { title: 'Test notification', body: 'Push notifications reach this device.' },
          data: { type: 'test_notification', sent_at: expect.any(String) },
        },
      ]);
    }
  });

  it('sends the Korean message when the client prefers Korean', async () => {
    const { user, tokens } = await userWithDevices('phone');
    await sendTestNotification(ctx.app, user.token, { headers: { 'accept-language': 'ko' } });
    expect(ctx.fcm.messages.find((message) => message.token === tokens.phone)?.notification).toEqual({
      title: '테스트 알림',
      body: '이 기기로 푸시 알림이 잘 도착합니다.',
    });
  });

  it('removes a push token FCM calls UNREGISTERED from that device only, and skips it afterwards', async () => {
    const { user, tokens } = await userWithDevices('old-phone', 'new-phone');
    ctx.fcm.behave('unregistered', tokens['old-phone']);
    const deliveries = byDevice(await sendTestNotification(ctx.app, user.token));
    expect(deliveries['old-phone']).toEqual({
      device_id: 'old-phone',
      status: 'failed',
      error:
        'FCM says the push token is no longer registered (the app was removed or its token changed). ' +
        'It was removed from this device.',
    });
    expect(deliveries['new-phone']?.status).toBe('sent');
    expect(await pushTokens(ctx.app, user.token)).toEqual({
      'old-phone': null,
      'new-phone': tokens['new-phone'],
    });
    expect(byDevice(await sendTestNotification(ctx.app, user.token))['old-phone']).toEqual({
      device_id: 'old-phone',
      status: 'skipped',
      error: 'The device has no push token.',
    });
  });

  it('removes a push token FCM refuses as an invalid argument', async () => {
    const { user, tokens } = await userWithDevices('phone');
    ctx.fcm.behave('invalid-argument', tokens.phone);
    expect(await sendTestNotification(ctx.app, user.token)).toEqual([
      {
        device_id: 'phone',
        status: 'failed',
        error: 'FCM refused the push token as invalid. It was removed from this device.',
      },
    ]);
    expect(await pushTokens(ctx.app, user.token)).toEqual({ phone: null });
  });

  it('reports a 500 from FCM as failed, keeps the token, and still delivers to the other devices', async () => {
    const { user, tokens } = await userWithDevices('broken', 'fine');
    ctx.fcm.behave('server-error', tokens.broken);
    const deliveries = byDevice(await sendTestNotification(ctx.app, user.token));
    expect(deliveries.broken).toEqual({
      device_id: 'broken',
      status: 'failed',
      error: 'FCM is unavailable (HTTP 500 INTERNAL).',
    });
    expect(deliveries.fine?.status).toBe('sent');
    expect(await pushTokens(ctx.app, user.token)).toEqual(tokens);
  });

  it('fetches one new access token when FCM refuses an expired one, and retries the send', async () => {
    const { user, tokens } = await userWithDevices('phone');
    await sendTestNotification(ctx.app, user.token);
    const issued = ctx.fcm.tokensIssued;
    ctx.fcm.expireAccessTokens();
    expect(await sendTestNotification(ctx.app, user.token)).toEqual([
      { device_id: 'phone', status: 'sent', error: null },
    ]);
    expect(ctx.fcm.tokensIssued).toBe(issued + 1);
    expect(ctx.fcm.messages.filter((message) => message.token === tokens.phone)).toHaveLength(2);
  });

  it('refreshes only once when FCM keeps answering 401, then reports the send failed', async () => {
    const { user, tokens } = await userWithDevices('phone');
    await sendTestNotification(ctx.app, user.token);
    const issued = ctx.fcm.tokensIssued;
    ctx.fcm.behave('unauthenticated', tokens.phone);
    expect(await sendTestNotification(ctx.app, user.token)).toEqual([
      {
        device_id: 'phone',
        status: 'failed',
        error: 'FCM refused our credentials (HTTP 401 UNAUTHENTICATED).',
      },
    ]);
    expect(ctx.fcm.tokensIssued).toBe(issued + 1);
    expect(await pushTokens(ctx.app, user.token)).toEqual(tokens);
  });
});

describe.each(backends)('%s: test/notification when FCM stalls', (backend) => {
  const ctx = useFcmApp(backend, { FCM_TIMEOUT_MS: '1500' });

  it('reports a send FCM never answers as failed once FCM_TIMEOUT_MS passes, keeping the token', async () => {
    const user = await registerUser(ctx.app);
    const tokens = { stalled: `fcm-stalled-${unique()}`, fine: `fcm-fine-${unique()}` };
    await registerDevice(ctx.app, user.token, { device_id: 'fine', push_token: tokens.fine });
    // A first send fetches the access token, so only the stalled send meets the short timeout.
    expect((await sendTestNotification(ctx.app, user.token))[0]?.status).toBe('sent');
    await registerDevice(ctx.app, user.token, { device_id: 'stalled', push_token: tokens.stalled });
    ctx.fcm.behave('stall', tokens.stalled);
    const deliveries = Object.fromEntries(
      (await sendTestNotification(ctx.app, user.token)).map((delivery) => [delivery.device_id, delivery]),
    );
    expect(deliveries.stalled).toEqual({
      device_id: 'stalled',
      status: 'failed',
      error: 'FCM did not answer within 1500 ms.',
    });
    expect(deliveries.fine?.status).toBe('sent');
    expect(await pushTokens(ctx.app, user.token)).toEqual(tokens);
  });
});

describe.each(backends)('%s: FCM access token and concurrency', (backend) => {
  const ctx = useFcmApp(backend);

  const names = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];

  it('fetches one access token for many sends across requests', async () => {
    const user = await registerUser(ctx.app);
    for (const name of names) {
      await registerDevice(ctx.app, user.token, { device_id: name, push_token: `fcm-${name}-${unique()}` });
    }
    expect(ctx.fcm.tokensIssued).toBe(0);
    for (let round = 0; round < 2; round++) {
      const deliveries = await sendTestNotification(ctx.app, user.token);
      expect(deliveries.map((delivery) => delivery.status)).toEqual(names.map(() => 'sent'));
    }
    // Seven sends at once all waited for the same token exchange; the second request reused it.
    expect(ctx.fcm.tokensIssued).toBe(1);
    expect(ctx.fcm.messages).toHaveLength(14);
  });

  it('keeps a few sends in flight at once, never all of them', async () => {
    const user = await registerUser(ctx.app);
    for (const name of names) {
      await registerDevice(ctx.app, user.token, { device_id: name, push_token: `fcm-${name}-${unique()}` });
    }
    // Slow answers keep each send open a while, so the fake sees how many the service runs together.
    ctx.fcm.behave('slow');
    try {
      const deliveries = await sendTestNotification(ctx.app, user.token);
      expect(deliveries.map((delivery) => delivery.status)).toEqual(names.map(() => 'sent'));
    } finally {
      ctx.fcm.behave('ok');
    }
    expect(ctx.fcm.maxConcurrentSends).toBeGreaterThanOrEqual(2);
    expect(ctx.fcm.maxConcurrentSends).toBeLessThanOrEqual(4);
  });
});
