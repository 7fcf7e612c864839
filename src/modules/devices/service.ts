import type { DeviceRow } from '../../db/schema.js';
import { type Executor, writeTransaction } from '../../db/transaction.js';
import { CommitFailedError, UnauthenticatedError } from '../../errors.js';
import type { AuthContext } from '../../http/auth-context.js';
import { type Static, t } from '../../http/response-schema.js';
import { newId } from '../../lib/ids.js';
import { iso } from '../../lib/time.js';
import type { DeviceFields, DevicesRepo } from './repo.js';

/** A device as its owner sees it. */
export const deviceShape = t.object({
  device_id: t.string(),
  platform: t.nullable(t.string()),
  push_token: t.nullable(t.string()),
  app_version: t.nullable(t.string()),
  os_version: t.nullable(t.string()),
  locale: t.nullable(t.string()),
  timezone: t.nullable(t.string()),
  push_enabled: t.boolean(),
  created_at: t.dateTime(),
  updated_at: t.dateTime(),
});
export type DeviceView = Static<typeof deviceShape>;

export interface DeviceUpdate extends DeviceFields {
  device_id: string;
}

export function deviceView(row: DeviceRow): DeviceView {
  return {
    device_id: row.device_id,
    platform: row.platform,
    push_token: row.push_token,
    app_version: row.app_version,
    os_version: row.os_version,
    locale: row.locale,
    timezone: row.timezone,
    push_enabled: row.push_enabled,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export class DevicesService {
  constructor(
    private readonly db: Executor,
    private readonly devices: DevicesRepo,
  ) {}

  /**
   * Registers or updates the device of the signed-in session. A push token is a device's address: when it
   * arrives here it is taken off every other row first, whoever's it was, in the same transaction, so a
   * shared phone never gets the previous account's notifications.
   */
  async update(auth: AuthContext, input: DeviceUpdate): Promise<DeviceView> {
    const userId = auth.user.id;
    const apiTokenId = auth.tokenId;
    const { device_id: deviceId, ...fields } = input;
    try {
      const row = await writeTransaction(this.db, async (trx) => {
        const repo = this.devices.with(trx);
        if (typeof fields.push_token === 'string') {
          // Registrations of one token run one after the other, so they never deadlock on each other's rows.
          await repo.lockPushToken(fields.push_token);
          await repo.releasePushToken(fields.push_token, { userId, deviceId });
        }
        return repo.upsert({ id: newId(), userId, deviceId, apiTokenId, fields });
      });
      return deviceView(row);
    } catch (error) {
      const cause = error instanceof CommitFailedError ? error.cause : undefined;
      // The session was revoked (logout, password change) while this request was on its way.
      if ((cause as { code?: unknown } | undefined)?.code === '23503') throw new UnauthenticatedError();
      throw error;
    }
  }

  /**
   * Forgets a push token the push service called dead (uninstalled app, rotated token), but only on this
   * device and only while it is still the token that failed. One statement: no transaction needed.
   */
  dropPushToken(userId: string, deviceId: string, pushToken: string): Promise<boolean> {
    return this.devices.clearPushToken(userId, deviceId, pushToken);
  }

  async list(auth: AuthContext): Promise<DeviceView[]> {
    return this.listOf(auth.user.id);
  }

  /** Any user's devices (the push sender's view, not a request's). */
  async listOf(userId: string): Promise<DeviceView[]> {
    return (await this.devices.listByUser(userId)).map(deviceView);
  }
}
