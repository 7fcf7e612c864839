import { sql } from 'kysely';
import type { Executor } from '../../db/transaction.js';

/** An agreement due for its re-confirmation reminder, with whom to mail and in which language. */
export interface DueReminder {
  record_id: string;
  user_id: string;
  key: string;
  recorded_at: Date;
  email: string;
  username: string;
  /** The locale of the user's most recently updated device (null: no device, or it sent none). */
  device_locale: string | null;
}

/** An agreement the reminder command withdrew, and whose it was. */
export interface ExpiredConsent {
  user_id: string;
  key: string;
  version: number;
}

/** The keys whose agreements must be re-confirmed every two years (the partial index of migration 0015). */
const reconfirmed = sql<boolean>`r.agreed AND (r.key LIKE 'marketing\\_%' OR r.key = 'night_push')`;

/** The SQL of the marketing re-confirmation (`accounts consent remind`). */
export class ConsentRemindersRepo {
  constructor(private readonly db: Executor) {}

  with(trx: Executor): ConsentRemindersRepo {
    return new ConsentRemindersRepo(trx);
  }

  /**
   * Up to `limit` agreements to re-confirm: recorded at or before `cutoff`, still the user's latest record of
   * their document, of an optional document, never reminded. Oldest first, on the partial reconfirm index.
   * The users table keeps no language: the user's latest device (on the (user_id, device_id) index) says it.
   */
  async dueReminders(cutoff: Date, limit: number): Promise<DueReminder[]> {
    const { rows } = await sql<DueReminder>`
      SELECT r.id::text AS record_id, r.user_id, r.key, r.recorded_at, u.email, u.username,
        (SELECT dv.locale FROM devices dv WHERE dv.user_id = r.user_id
         ORDER BY dv.updated_at DESC, dv.id DESC LIMIT 1) AS device_locale
      FROM consent_records r
      JOIN users u ON u.id = r.user_id
      JOIN consent_documents d ON d.key = r.key AND NOT d.required
      WHERE ${reconfirmed} AND r.recorded_at <= ${cutoff}
        AND NOT EXISTS (SELECT 1 FROM consent_reminders m WHERE m.record_id = r.id)
        AND NOT EXISTS (SELECT 1 FROM consent_records n
                        WHERE n.user_id = r.user_id AND n.key = r.key AND n.id > r.id)
      ORDER BY r.recorded_at, r.id
      LIMIT ${limit}`.execute(this.db);
    return rows;
  }

  /** Marks these agreements reminded; returns those no other run had marked (a second run gets none). */
  async markReminded(recordIds: readonly string[]): Promise<string[]> {
    const { rows } = await sql<{ record_id: string }>`
      INSERT INTO consent_reminders (record_id)
      SELECT unnest(${[...recordIds]}::bigint[])
      ON CONFLICT (record_id) DO NOTHING
      RETURNING record_id::text AS record_id`.execute(this.db);
    return rows.map((row) => row.record_id);
  }

  /**
   * Settles up to `limit` reminders sent at or before `cutoff` (marks them resolved; a reminder is settled
   * once, its row's lock orders two runs) and returns their agreements with whose they are.
   */
  async settleDue(cutoff: Date, limit: number): Promise<{ record_id: string; user_id: string }[]> {
    const { rows } = await sql<{ record_id: string; user_id: string }>`
      WITH settled AS (
        UPDATE consent_reminders SET resolved_at = now()
        WHERE record_id IN (
          SELECT record_id FROM consent_reminders
          WHERE resolved_at IS NULL AND reminded_at <= ${cutoff}
          ORDER BY reminded_at LIMIT ${limit}
          FOR UPDATE SKIP LOCKED)
        AND resolved_at IS NULL
        RETURNING record_id)
      SELECT r.id::text AS record_id, r.user_id FROM settled s JOIN consent_records r ON r.id = s.record_id
      `.execute(this.db);
    return rows;
  }

  /**
   * Appends a withdrawal (channel `expiry`) of each of these agreements that is still its user's latest
   * record of its document (an answer since then settled it). Returns what was withdrawn, and whose.
   */
  async withdrawUnanswered(recordIds: readonly string[]): Promise<ExpiredConsent[]> {
    if (recordIds.length === 0) return [];
    const { rows } = await sql<ExpiredConsent>`
      INSERT INTO consent_records (user_id, key, version, agreed, channel, client_address)
      SELECT r.user_id, r.key, r.version, false, 'expiry', NULL
      FROM consent_records r
      WHERE r.id = ANY(${[...recordIds]}::bigint[])
        AND NOT EXISTS (SELECT 1 FROM consent_records n
                        WHERE n.user_id = r.user_id AND n.key = r.key AND n.id > r.id)
      RETURNING user_id, key, version`.execute(this.db);
    return rows;
  }
}
