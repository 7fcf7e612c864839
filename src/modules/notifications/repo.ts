import { sql } from 'kysely';
import type { NotificationOutboxRow } from '../../db/schema.js';
import type { Executor } from '../../db/transaction.js';
import type { PushOutbox } from '../../push/log-transport.js';

/** Where a page of recorded pushes ends: the exact `created_at` (as text, microseconds kept) and the id. */
export interface PushCursor {
  sort_at: string;
  id: string;
}

export type PushPageRow = NotificationOutboxRow & { sort_at: string };

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
   * (user_id, created_at) index (the data export reads them this way). Each row carries its exact sort key:
   * `created_at` has microseconds, a JavaScript Date only milliseconds, and a cursor rounded down would read
   * the rows of its last millisecond twice.
   */
  page(userId: string, after: PushCursor | undefined, limit: number): Promise<PushPageRow[]> {
    let query = this.db
      .selectFrom('notification_outbox')
      .selectAll()
      .select(
        sql<string>`to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`.as('sort_at'),
      )
      .where('user_id', '=', userId)
      .orderBy('created_at')
      .orderBy('id')
      .limit(limit);
    if (after) {
      query = query.where(
        sql<boolean>`(created_at, id) > (${after.sort_at}::timestamptz, ${after.id}::uuid)`,
      );
    }
    return query.execute();
  }
}
