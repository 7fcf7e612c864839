import type { SecurityEventRow, UserRow } from '../../db/schema.js';
import { iso } from '../../lib/time.js';
import type { ConsentHistoryCursor, ConsentHistoryRecord } from '../../modules/consents/history-repo.js';
import type { PushCursor, PushPageRow } from '../../modules/notifications/repo.js';
import type { ActivityCursor } from '../../modules/security-events/cursor.js';
import { keysetPages } from './paging.js';

/**
 * A file of the zip that holds one of the user's histories as a JSON array, read a keyset page at a time
 * and written as it is read: a long history is never held in memory whole.
 */
export interface ExportList {
  file: string;
  rows(user: UserRow): AsyncIterable<unknown[]>;
}

export interface ListSources {
  consentHistory(
    userId: string,
    after: ConsentHistoryCursor | undefined,
    limit: number,
  ): Promise<ConsentHistoryRecord[]>;
  securityEvents(
    userId: string,
    after: ActivityCursor | undefined,
    limit: number,
  ): Promise<SecurityEventRow[]>;
  notifications(userId: string, after: PushCursor | undefined, limit: number): Promise<PushPageRow[]>;
}

async function* mapped<T>(pages: AsyncIterable<T[]>, toJson: (row: T) => unknown): AsyncGenerator<unknown[]> {
  for await (const page of pages) yield page.map(toJson);
}

const isoOrNull = (date: Date | null) => (date === null ? null : iso(date));

/** The history files of the zip, in the order they appear after account.json. */
export function exportLists(sources: ListSources): ExportList[] {
  return [
    {
      // Every agreement and withdrawal as stored, by document and then in the order they were made.
      file: 'consents.json',
      rows: (user) =>
        mapped(
          keysetPages(
            (after: ConsentHistoryCursor | undefined, limit) => sources.consentHistory(user.id, after, limit),
            (record) => ({ key: record.key, id: record.id }),
          ),
          (record) => ({
            key: record.key,
            version: record.version,
            agreed: record.agreed,
            at: iso(record.recorded_at),
            channel: record.channel,
            client_address: record.client_address,
            reminded_at: isoOrNull(record.reminded_at),
          }),
        ),
    },
    {
      // Every event the log still keeps (SECURITY_EVENTS_DAYS), newest first as the activity list shows them.
      file: 'security_events.json',
      rows: (user) =>
        mapped(
          keysetPages(
            (after: ActivityCursor | undefined, limit) => sources.securityEvents(user.id, after, limit),
            (event) => ({ at: event.at, id: event.id }),
          ),
          (event) => ({
            type: event.type,
            at: iso(event.at),
            ip: event.ip,
            user_agent: event.user_agent,
            details: event.details,
          }),
        ),
    },
    {
      // The pushes the log transport recorded for the user's devices (never their push tokens).
      file: 'notifications.json',
      rows: (user) =>
        mapped(
          keysetPages(
            (after: PushCursor | undefined, limit) => sources.notifications(user.id, after, limit),
            (push) => ({ sort_at: push.sort_at, id: push.id }),
          ),
          (push) => ({
            device_id: push.device_id,
            title: push.payload.title,
            body: push.payload.body,
            data: push.payload.data,
            status: push.status,
            error: push.error,
            created_at: iso(push.created_at),
          }),
        ),
    },
  ];
}
