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
}
