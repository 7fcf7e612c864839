import { type AnyEndpoint, endpoint } from '../../http/endpoint.js';
import { t } from '../../http/response-schema.js';
import { rules } from '../../validation/rule-list.js';
import { deviceUpdateRules } from './rules.js';
import { type DevicesService, type DeviceView, deviceShape } from './service.js';

const deviceExample: DeviceView = {
  device_id: 'A1B2C3D4-E5F6-4711-8899-AABBCCDDEEFF',
  platform: 'ios',
  push_token: 'fcm-token-of-this-device',
  app_version: '3.2.0',
  os_version: '18.1',
  locale: 'ko-KR',
  timezone: 'Asia/Seoul',
  push_enabled: true,
  created_at: '2026-11-23T12:42:00.789Z',
  updated_at: '2026-11-23T12:42:00.789Z',
};

export function deviceEndpoints(devices: DevicesService): AnyEndpoint[] {
  return [
    endpoint({
      method: 'POST',
      path: '/user/device/update',
      summary: 'Register or update a device of the signed-in user',
      description:
        'Upsert per (user, device_id); fields left out keep their value. A push token belongs to one device: ' +
        'registering it removes it from any other device, of any user. The device is tied to the session that ' +
        'registered it and disappears when that session is revoked.',
      tag: 'user',
      auth: 'required',
      rules: deviceUpdateRules,
      response: t.object({ device: deviceShape }),
      example: { device: deviceExample },
      handle: async ({ params, auth }) => ({
        device: await devices.update(auth, params),
      }),
    }),
    endpoint({
      method: 'GET',
      path: '/user/device/get',
      summary: "The signed-in user's devices",
      tag: 'user',
      auth: 'required',
      rules: rules({}),
      response: t.object({ devices: t.array(deviceShape) }),
      example: { devices: [deviceExample] },
      handle: async ({ auth }) => ({ devices: await devices.list(auth) }),
    }),
  ];
}
