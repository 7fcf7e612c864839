import type { Selectable } from 'kysely';
import { sql } from 'kysely';
import type { SmsOutboxTable } from '../db/schema-codes.js';
import type { Executor } from '../db/transaction.js';

export type SmsOutboxRow = Selectable<SmsOutboxTable>;

/** A message as its request writes it: claimed by that instance for its first send. */
export interface NewSms {
  id: string;
  to: string;
  kind: string;
  text: string;
  /** When the code it carries dies: never sent after. */
  expiresAt: Date;
  leaseMs: number;
}

/** The SQL of the SMS outbox (migration 0043), as the mail outbox's (mail/outbox-repo.ts). */
export class SmsOutboxRepo {
  constructor(private readonly db: Executor) {}

  with(trx: Executor): SmsOutboxRepo {
    return new SmsOutboxRepo(trx);
  }

  /**
   * Writes a message pending and already claimed by its writer for the first send (attempt 1, due again only
   * when the lease runs out): that instance sends it after commit; if it dies first, any retrier does.
   */
  async insertClaimed(sms: NewSms): Promise<void> {
    await this.db
      .insertInto('sms_outbox')
      .values({
        id: sms.id,
        to_number: sms.to,
        kind: sms.kind,
        body: sms.text,
        attempts: 1,
        next_attempt_at: sql<Date>`now() + make_interval(secs => ${sms.leaseMs / 1000})`,
        expires_at: sms.expiresAt,
      })
      .execute();
  }

  /**
   * Claims the earliest due live message for one send, in one statement: the attempt is counted and the row
   * leased, so no other sender (here or on another instance) takes it meanwhile; SKIP LOCKED makes concurrent
   * claimers take different rows instead of waiting.
   */
  async claim(leaseMs: number): Promise<SmsOutboxRow | undefined> {
    const result = await sql<SmsOutboxRow>`
      UPDATE sms_outbox SET attempts = attempts + 1,
        next_attempt_at = now() + make_interval(secs => ${leaseMs / 1000})
      WHERE id = (
        SELECT id FROM sms_outbox
        WHERE status = 'pending' AND next_attempt_at <= now() AND expires_at > now()
        ORDER BY next_attempt_at
        LIMIT 1
        FOR UPDATE SKIP LOCKED
      )
      RETURNING *`.execute(this.db);
    return result.rows[0];
  }

  /** Gives up the messages whose code died unsent (their body, which holds it, with them). */
  async expire(): Promise<number> {
    const result = await this.db
      .updateTable('sms_outbox')
      .set({ status: 'failed', body: null, last_error: 'code expired before it was sent' })
      .where('status', '=', 'pending')
      .where('expires_at', '<=', sql<Date>`now()`)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** Delivered: the body (the code) is emptied; `sentBy` is the gateway's message id. */
  async markSent(id: string, sentBy: string): Promise<void> {
    await this.db
      .updateTable('sms_outbox')
      .set({ status: 'sent', sent_by: sentBy, sent_at: sql<Date>`now()`, body: null, last_error: null })
      .where('id', '=', id)
      .execute();
  }

  /** Not delivered: due again after `retryInMs`, or given up (`undefined`) with its body emptied. */
  async markFailed(id: string, error: string, retryInMs: number | undefined): Promise<void> {
    await this.db
      .updateTable('sms_outbox')
      .set(
        retryInMs === undefined
          ? { status: 'failed', last_error: error, body: null }
          : {
              last_error: error,
              next_attempt_at: sql<Date>`now() + make_interval(secs => ${retryInMs / 1000})`,
            },
      )
      .where('id', '=', id)
      .execute();
  }

  /** Account deletion: messages still waiting for the number are dropped, the record keeps no number. */
  async forgetNumber(number: string): Promise<void> {
    await this.db.deleteFrom('sms_outbox').where('to_number', '=', number).execute();
  }
}
