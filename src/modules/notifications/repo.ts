import { sql } from 'kysely';
import type { NotificationOutboxRow } from '../../db/schema.js';
import type { Executor } from '../../db/transaction.js';
import type { PushOutbox } from '../../push/log-transport.js';

/** notification_outbox: where the log push transport records each delivery. */
export class NotificationOutboxRepo implements PushOutbox {
  constructor(private readonly db: Executor) {}

  async record(entry: Parameters<PushOutbox['record']>[0]): Promise<void> {
    await this.db
      .insertInto('notification_outbox')
      .values({
        id: entry.id,
        user_id: entry.userId,
        device_id: entry.deviceId,
        payload: JSON.stringify(entry.payload),
        status: entry.status,
        error: entry.error,
      })
      .execute();
  }

  /**
   * Up to `limit` of the user's recorded pushes after `after`, oldest first: a keyset page on the
   * (user_id, created_at) index (the data export reads them this way).
   */
  page(
    userId: string,
    after: { created_at: Date; id: string } | undefined,
    limit: number,
  ): Promise<NotificationOutboxRow[]> {
    let query = this.db
      .selectFrom('notification_outbox')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('created_at')
      .orderBy('id')
      .limit(limit);
    if (after) {
      query = query.where(
        sql<boolean>`(created_at, id) > (${after.created_at}::timestamptz, ${after.id}::uuid)`,
      );
    }
    return query.execute();
  }
}
