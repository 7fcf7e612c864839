import { type AnyEndpoint, endpoint } from '../../http/endpoint.js';
import { t } from '../../http/response-schema.js';
import { preferredLocale } from '../../validation/messages.js';
import { testNotificationRules } from './rules.js';
import { deliveryShape, type NotificationsService } from './service.js';

const DESCRIPTION =
  'Sends a test push to each of the signed-in user’s devices and reports one delivery per device: ' +
  '`{"deliveries": [{"device_id", "status": "sent|failed|skipped", "error": string|null}]}`. A device ' +
  'without a push token or with push_enabled false is skipped. A token the push service calls dead is ' +
  'removed from its device. The message is Korean or English by Accept-Language.';

export function notificationEndpoints(notifications: NotificationsService): AnyEndpoint[] {
  // The apps' catalogue lists GET, and they send most calls as POST forms: both do the same.
  return (['POST', 'GET'] as const).map((method) =>
    endpoint({
      method,
      path: '/test/notification',
      summary: "Send a test push to the signed-in user's devices",
      description: DESCRIPTION,
      tag: 'notifications',
      auth: 'required',
      rules: testNotificationRules,
      response: t.object({ deliveries: t.array(deliveryShape) }),
      example: {
        deliveries: [{ device_id: 'A1B2C3D4-E5F6-4711-8899-AABBCCDDEEFF', status: 'sent', error: null }],
      },
      handle: async ({ auth, request }) => ({
        deliveries: await notifications.sendTest(auth, preferredLocale(request.headers['accept-language'])),
      }),
    }),
  );
}
