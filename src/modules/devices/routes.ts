import { type AnyEndpoint, endpoint } from '../../http/endpoint.js';
import { rules } from '../../validation/fields.js';
import { deviceUpdateRules } from './rules.js';
import type { DevicesService } from './service.js';

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
      handle: async ({ auth }) => ({ devices: await devices.list(auth) }),
    }),
  ];
}
