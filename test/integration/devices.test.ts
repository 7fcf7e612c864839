import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, registerUser, unique } from '../helpers/factories.js';
import { expectError, expectOk, expectValidationError, postForm, UNAUTHENTICATED } from '../helpers/http.js';

interface Device {
  device_id: string;
  push_token: string | null;
  [key: string]: unknown;
}

describe.each(backends)('%s: user/device/update and user/device/get', (backend) => {
  const ctx = useTestApp(backend);

  const updateDevice = (token: string | undefined, body: Record<string, string>) =>
    postForm(ctx.app, '/v1/user/device/update', body, token ? bearer(token) : {});

  const listDevices = async (token: string) =>
    expectOk<{ devices: Device[] }>(
      await ctx.app.inject({ method: 'GET', url: '/v1/user/device/get', headers: bearer(token) }),
    ).devices;

  it('registers a device with every field and lists it', async () => {
    const me = await registerUser(ctx.app);
    const deviceId = `device-${unique()}`;
    const res = await updateDevice(me.token, {
      device_id: deviceId,
      platform: 'ios',
      push_token: `apns-${unique()}`,
      app_version: '3.2.1',
      os_version: '17.4',
      locale: 'ko-KR',
      timezone: 'Asia/Seoul',
      push_enabled: 'false',
    });
    const { device } = expectOk<{ device: Device }>(res);
    expect(device).toEqual({
      device_id: deviceId,
      platform: 'ios',
      push_token: expect.stringMatching(/^apns-/),
      app_version: '3.2.1',
      os_version: '17.4',
      locale: 'ko-KR',
      timezone: 'Asia/Seoul',
      push_enabled: false,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(await listDevices(me.token)).toEqual([device]);
  });

  it('updates the same (user, device_id) in place, changing only the fields sent', async () => {
    const me = await registerUser(ctx.app);
    const deviceId = `device-${unique()}`;
    expectOk(await updateDevice(me.token, { device_id: deviceId, platform: 'android', app_version: '1.0' }));
    const { device } = expectOk<{ device: Device }>(
      await updateDevice(me.token, { device_id: deviceId, app_version: '1.1' }),
    );
    expect(device).toMatchObject({
      platform: 'android',
      app_version: '1.1',
      push_enabled: true,
      push_token: null,
    });
    expect(await listDevices(me.token)).toEqual([device]);
  });

  it('needs only device_id, and lists several devices', async () => {
    const me = await registerUser(ctx.app);
    expectOk(await updateDevice(me.token, { device_id: 'phone' }));
    expectOk(await updateDevice(me.token, { device_id: 'tablet', platform: 'web' }));
    const devices = await listDevices(me.token);
    expect(devices.map((d) => d.device_id).sort()).toEqual(['phone', 'tablet']);
    expect(await listDevices((await registerUser(ctx.app)).token)).toEqual([]);
  });

  it('reports every failing field together', async () => {
    const me = await registerUser(ctx.app);
    const res = await updateDevice(me.token, {
      platform: 'windows',
      push_token: 'x'.repeat(4097),
      app_version: '1'.repeat(65),
      os_version: '1'.repeat(65),
      locale: 'not a locale',
      timezone: 'Mars/Olympus',
      push_enabled: 'maybe',
    });
    expectValidationError(res, {
      device_id: ['The device id field is required.'],
      platform: ['The selected platform is invalid.'],
      push_token: ['The push token may not be greater than 4096 characters.'],
      app_version: ['The app version may not be greater than 64 characters.'],
      os_version: ['The os version may not be greater than 64 characters.'],
      locale: ['The locale format is invalid.'],
      timezone: ['The timezone must be a valid zone.'],
      push_enabled: ['The push enabled field must be true or false.'],
    });
  });

  it('refuses a device_id that is too long or not a string', async () => {
    const me = await registerUser(ctx.app);
    expectValidationError(await updateDevice(me.token, { device_id: 'd'.repeat(256) }), {
      device_id: ['The device id may not be greater than 255 characters.'],
    });
    expectValidationError(
      await postForm(ctx.app, '/v1/user/device/update', { device_id: ['a', 'b'] }, bearer(me.token)),
      {
        device_id: ['The device id must be a string.'],
      },
    );
  });

  it('answers in Korean when the client prefers it', async () => {
    const me = await registerUser(ctx.app);
    const res = await postForm(
      ctx.app,
      '/v1/user/device/update',
      { device_id: 'x', timezone: 'Nowhere/Land' },
      { ...bearer(me.token), 'accept-language': 'ko' },
    );
    expectValidationError(res, { timezone: ['시간대는 올바른 시간대여야 합니다.'] });
  });

  it('moves a push token to the account that registers it last: the previous one never gets it again', async () => {
    const first = await registerUser(ctx.app);
    const second = await registerUser(ctx.app);
    const pushToken = `fcm-${unique()}`;
    expectOk(await updateDevice(first.token, { device_id: 'shared-phone', push_token: pushToken }));
    expectOk(await updateDevice(second.token, { device_id: 'shared-phone', push_token: pushToken }));

    expect(await listDevices(first.token)).toEqual([
      expect.objectContaining({ device_id: 'shared-phone', push_token: null }),
    ]);
    expect(await listDevices(second.token)).toEqual([
      expect.objectContaining({ device_id: 'shared-phone', push_token: pushToken }),
    ]);

    // And back again.
    expectOk(await updateDevice(first.token, { device_id: 'shared-phone', push_token: pushToken }));
    expect((await listDevices(second.token))[0]?.push_token).toBeNull();
    expect((await listDevices(first.token))[0]?.push_token).toBe(pushToken);
  });

  it("moves a push token between one user's devices", async () => {
    const me = await registerUser(ctx.app);
    const pushToken = `fcm-${unique()}`;
    expectOk(await updateDevice(me.token, { device_id: 'old-phone', push_token: pushToken }));
    expectOk(await updateDevice(me.token, { device_id: 'new-phone', push_token: pushToken }));
    const devices = await listDevices(me.token);
    expect(devices.find((d) => d.device_id === 'old-phone')?.push_token).toBeNull();
    expect(devices.find((d) => d.device_id === 'new-phone')?.push_token).toBe(pushToken);
    // Re-sending the same token for the same device keeps it.
    expectOk(await updateDevice(me.token, { device_id: 'new-phone', push_token: pushToken }));
    expect((await listDevices(me.token)).find((d) => d.device_id === 'new-phone')?.push_token).toBe(
      pushToken,
    );
  });

  it("never reads or changes another user's device of the same device_id", async () => {
    const me = await registerUser(ctx.app);
    const other = await registerUser(ctx.app);
    expectOk(await updateDevice(other.token, { device_id: 'same-id', platform: 'ios', app_version: '9.9' }));
    expectOk(await updateDevice(me.token, { device_id: 'same-id', platform: 'android' }));
    expect(await listDevices(other.token)).toEqual([
      expect.objectContaining({ device_id: 'same-id', platform: 'ios', app_version: '9.9' }),
    ]);
    expect(await listDevices(me.token)).toEqual([
      expect.objectContaining({ device_id: 'same-id', platform: 'android', app_version: null }),
    ]);
  });

  it('removes a device when the session that registered it is revoked', async () => {
    const me = await registerUser(ctx.app);
    const phone = expectOk<{ user: { api_token: string } }>(
      await postForm(ctx.app, '/v1/auth/login/email', { email: me.email, password: me.password }),
    ).user.api_token;
    expectOk(await updateDevice(phone, { device_id: 'phone', push_token: `fcm-${unique()}` }));
    expectOk(await updateDevice(me.token, { device_id: 'laptop' }));
    expectOk(await postForm(ctx.app, '/v1/auth/logout', {}, bearer(phone)));
    expect((await listDevices(me.token)).map((d) => d.device_id)).toEqual(['laptop']);
  });

  it('is a 401 without a token, with an unknown one and with a revoked one', async () => {
    const me = await registerUser(ctx.app);
    for (const token of [undefined, 'garbage-token']) {
      expectError(await updateDevice(token, { device_id: 'x' }), 401, ...UNAUTHENTICATED);
      expectError(
        await ctx.app.inject({
          method: 'GET',
          url: '/v1/user/device/get',
          headers: token ? bearer(token) : {},
        }),
        401,
        ...UNAUTHENTICATED,
      );
    }
    expectOk(await postForm(ctx.app, '/v1/auth/logout', {}, bearer(me.token)));
    expectError(await updateDevice(me.token, { device_id: 'x' }), 401, ...UNAUTHENTICATED);
    expectError(
      await ctx.app.inject({ method: 'GET', url: '/v1/user/device/get', headers: bearer(me.token) }),
      401,
      ...UNAUTHENTICATED,
    );
  });

  it('removes the push token (and only the fields sent empty) when they are sent empty', async () => {
    const me = await registerUser(ctx.app);
    const deviceId = `device-${unique()}`;
    expectOk(
      await updateDevice(me.token, {
        device_id: deviceId,
        push_token: `fcm-${unique()}`,
        app_version: '1.0.0',
      }),
    );
    const { device } = expectOk<{ device: Device }>(
      await updateDevice(me.token, { device_id: deviceId, push_token: '' }),
    );
    expect(device.push_token).toBeNull();
    expect(device.app_version).toBe('1.0.0');
  });

  it('refuses a NUL character in a device field with a 422 on the field', async () => {
    const me = await registerUser(ctx.app);
    expectValidationError(await updateDevice(me.token, { device_id: 'a\u0000b', push_token: 'x\u0000y' }), {
      device_id: ['The device id format is invalid.'],
      push_token: ['The push token format is invalid.'],
    });
  });
});
