import { sql } from 'kysely';
import type { MailFoldRow } from '../db/schema.js';
import type { Executor } from '../db/transaction.js';

/** The first key of the per-address summary locks: apart from every other advisory lock. */
const SUMMARY_LOCK_CLASS = 727_016;

/** The SQL of mail_folds: the mails the per-address cap held back, until their window's summary. */
export class FoldsRepo {
  constructor(private readonly db: Executor) {}

  with(trx: Executor): FoldsRepo {
    return new FoldsRepo(trx);
  }

  /** Up to `limit` addresses (lower-cased) with folds whose window is over, on the due_at index. */
  async dueAddresses(limit: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('mail_folds')
      .select(sql<string>`lower(to_address)`.as('address'))
      .where('due_at', '<=', sql<Date>`now()`)
      .groupBy(sql`lower(to_address)`)
      .limit(limit)
      .execute();
    return rows.map((row) => row.address);
  }

  /**
   * Inside a transaction: takes the address's summary lock, then removes and returns its folds whose window
   * is over, oldest first. Every instance runs the summaries: one that comes second waits for the lock, then
   * finds the folds gone with the first one's commit, so an address gets one summary per window.
   */
  async takeDue(address: string): Promise<MailFoldRow[]> {
    await sql`SELECT pg_advisory_xact_lock(${SUMMARY_LOCK_CLASS}, hashtext(${address}))`.execute(this.db);
    const rows = await this.db
      .deleteFrom('mail_folds')
      .where(sql<boolean>`lower(to_address) = ${address}`)
      .where('due_at', '<=', sql<Date>`now()`)
      .returningAll()
      .execute();
    return rows.sort((a, b) => a.folded_at.getTime() - b.folded_at.getTime() || a.id.localeCompare(b.id));
  }
}
