import { sql } from 'kysely';
import type { ConsentChannel } from '../../db/schema.js';
import type { Executor } from '../../db/transaction.js';

/** One consent record as stored, with when its re-confirmation reminder went out (if one did). */
export interface ConsentHistoryRecord {
  id: string;
  key: string;
  version: number;
  agreed: boolean;
  channel: ConsentChannel;
  client_address: string | null;
  recorded_at: Date;
  reminded_at: Date | null;
}

/** Where a page of the history ends: its order is (key, id). */
export interface ConsentHistoryCursor {
  key: string;
  id: string;
}

/** A user's whole consent history, read for the data export. */
export class ConsentHistoryRepo {
  constructor(private readonly db: Executor) {}

  /**
   * Up to `limit` of the user's records after `after`, by document key and then as they were appended: a
   * keyset page on the (user_id, key, id DESC) index, so a long history is read a page at a time.
   */
  async page(
    userId: string,
    after: ConsentHistoryCursor | undefined,
    limit: number,
  ): Promise<ConsentHistoryRecord[]> {
    const from = after ? sql`AND (r.key, r.id) > (${after.key}::text, ${after.id}::bigint)` : sql``;
    const { rows } = await sql<ConsentHistoryRecord>`
      SELECT r.id::text AS id, r.key, r.version, r.agreed, r.channel, r.client_address, r.recorded_at,
        m.reminded_at
      FROM consent_records r
      LEFT JOIN consent_reminders m ON m.record_id = r.id
      WHERE r.user_id = ${userId}::uuid ${from}
      ORDER BY r.key, r.id
      LIMIT ${limit}`.execute(this.db);
    return rows;
  }
}
