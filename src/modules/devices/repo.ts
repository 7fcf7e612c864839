import { sql } from 'kysely';
import type { DeviceRow } from '../../db/schema.js';
import type { Executor } from '../../db/transaction.js';

export interface DeviceFields {
  platform?: string | undefined;
  push_token?: string | null | undefined;
  app_version?: string | null | undefined;
  os_version?: string | null | undefined;
  locale?: string | null | undefined;
  timezone?: string | null | undefined;
  push_enabled?: boolean | undefined;
}

const FIELD_NAMES = [
  'platform',
  'push_token',
  'app_version',
  'os_version',
  'locale',
  'timezone',
  'push_enabled',
] as const;

/** The first key of the push-token advisory locks: keeps them apart from every other advisory lock. */
const PUSH_TOKEN_LOCK_CLASS = 727_002;

export class DevicesRepo {
  constructor(private readonly db: Executor) {}

  with(trx: Executor): DevicesRepo {
    return new DevicesRepo(trx);
  }

  /**
   * Serialises every registration of one push token until the transaction ends. Without it two
   * registrations each cleared the token from the other's row and then waited on the other's insert in the
   * unique index: a deadlock. Keyed by a hash of the token (a collision only makes two tokens wait in turn).
   */
  async lockPushToken(pushToken: string): Promise<void> {
    await sql`SELECT pg_advisory_xact_lock(${PUSH_TOKEN_LOCK_CLASS}, hashtext(${pushToken}))`.execute(
      this.db,
    );
  }

  /** Takes a push token away from every device but this one (on the partial push_token index). */
  async releasePushToken(pushToken: string, keep: { userId: string; deviceId: string }): Promise<void> {
    await this.db
      .updateTable('devices')
      .set({ push_token: null, updated_at: sql<Date>`now()` })
      .where('push_token', '=', pushToken)
      .where((eb) => eb.not(eb.and([eb('user_id', '=', keep.userId), eb('device_id', '=', keep.deviceId)])))
      .execute();
  }

  /**
   * Clears this device's push token if it still is `pushToken` (on the (user_id, device_id) index): a token
   * the app registered since the failed push is newer and stays. Returns whether a row changed.
   */
  async clearPushToken(userId: string, deviceId: string, pushToken: string): Promise<boolean> {
    const result = await this.db
      .updateTable('devices')
      .set({ push_token: null, updated_at: sql<Date>`now()` })
      .where('user_id', '=', userId)
      .where('device_id', '=', deviceId)
      .where('push_token', '=', pushToken)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /**
   * One row per (user, device_id): inserted the first time, otherwise only the fields given are changed.
   * One statement on the unique index, so two requests of the same device cannot create two rows.
   */
  async upsert(row: {
    id: string;
    userId: string;
    deviceId: string;
    apiTokenId: string;
    fields: DeviceFields;
  }): Promise<DeviceRow> {
    const given = FIELD_NAMES.filter((name) => row.fields[name] !== undefined);
    const values = Object.fromEntries(given.map((name) => [name, row.fields[name]]));
    return this.db
      .insertInto('devices')
      .values({
        id: row.id,
        user_id: row.userId,
        device_id: row.deviceId,
        api_token_id: row.apiTokenId,
        ...values,
      })
      .onConflict((oc) =>
        oc.columns(['user_id', 'device_id']).doUpdateSet((eb) => ({
          ...Object.fromEntries(given.map((name) => [name, eb.ref(`excluded.${name}`)])),
          api_token_id: eb.ref('excluded.api_token_id'),
          updated_at: sql<Date>`now()`,
        })),
      )
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /** The user's devices, most recently updated first (on the (user_id, device_id) index; a user has few). */
  listByUser(userId: string): Promise<DeviceRow[]> {
    return this.db
      .selectFrom('devices')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('updated_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
  }
}
