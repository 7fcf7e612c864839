import type { AuthContext } from '../../http/auth-context.js';
import { type Static, t } from '../../http/response-schema.js';
import { mapWithLimit } from '../../lib/concurrency.js';
import type { PushPayload, PushTransport } from '../../push/transport.js';
import type { Locale } from '../../validation/messages.js';

/** What became of the test push on one device, as the client sees it. */
export const deliveryShape = t.object({
  device_id: t.string(),
  status: t.enum(['sent', 'failed', 'skipped']),
  error: t.nullable(t.string()),
});
export type Delivery = Static<typeof deliveryShape>;

/** Called when a dead push token could not be removed (it stays, and the next push tries again). */
export type DropFailureReporter = (details: { userId: string; deviceId: string }, error: unknown) => void;

/** A device as the push sender needs it: where to push, and whether its user lets it be pushed to. */
export interface PushTarget {
  device_id: string;
  push_token: string | null;
  push_enabled: boolean;
}

/**
 * The devices a user has registered (the devices module's service, handed in by the composition root): read
 * to push to each, and told when a push service called a token dead.
 */
export interface PushTargets {
  listOf(userId: string): Promise<PushTarget[]>;
  /** Forgets the token unless the device has registered another since; whether it was removed. */
  dropPushToken(userId: string, deviceId: string, pushToken: string): Promise<boolean>;
}

/** Pushes in flight at once for one request: enough to not wait device by device, few enough to be polite. */
const SEND_CONCURRENCY = 4;

const TEST_MESSAGE: Record<Locale, { title: string; body: string }> = {
  en: { title: 'Test notification', body: 'Push notifications reach this device.' },
  ko: { title: '테스트 알림', body: '이 기기로 푸시 알림이 잘 도착합니다.' },
};

export class NotificationsService {
  constructor(
    private readonly devices: PushTargets,
    private readonly transport: PushTransport,
    private readonly reportDropFailure: DropFailureReporter,
  ) {}

  /** Sends a test push to each of the user's devices that can receive one; one delivery per device. */
  async sendTest(auth: AuthContext, locale: Locale): Promise<Delivery[]> {
    const userId = auth.user.id;
    const devices = await this.devices.listOf(userId);
    const payload: PushPayload = {
      ...TEST_MESSAGE[locale],
      // FCM data values are strings; the app tells a test push from a real one by `type`.
      data: { type: 'test_notification', sent_at: new Date().toISOString() },
    };
    return mapWithLimit(devices, SEND_CONCURRENCY, (device) => this.deliver(userId, device, payload));
  }

  private async deliver(userId: string, device: PushTarget, payload: PushPayload): Promise<Delivery> {
    const deviceId = device.device_id;
    if (device.push_token === null) {
      return { device_id: deviceId, status: 'skipped', error: 'The device has no push token.' };
    }
    if (!device.push_enabled) {
      return {
        device_id: deviceId,
        status: 'skipped',
        error: 'Notifications are turned off on this device.',
      };
    }
    const pushToken = device.push_token;
    const result = await this.transport.send({ userId, deviceId, pushToken, payload });
    if (result.status === 'sent') return { device_id: deviceId, status: 'sent', error: null };
    if (result.status === 'failed') return { device_id: deviceId, status: 'failed', error: result.error };
    // A dead token: forget it, so no later push is wasted on it and the app registers a new one at its start.
    let outcome: string;
    try {
      outcome = (await this.devices.dropPushToken(userId, deviceId, pushToken))
        ? 'It was removed from this device.'
        : 'The device has registered another token since.';
    } catch (error) {
      this.reportDropFailure({ userId, deviceId }, error);
      outcome = 'Removing it failed; the next push will try again.';
    }
    return { device_id: deviceId, status: 'failed', error: `${result.error} ${outcome}` };
  }
}
