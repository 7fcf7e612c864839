import { sql } from 'kysely';
import { Precompiled } from '../db/precompiled.js';
import type { MailOutboxRow, MailStatus } from '../db/schema.js';
import type { Executor, TableInserter } from '../db/transaction.js';
import { maskAddress } from './transport.js';

export interface NewOutboxMail {
  id: string;
  to: string;
  kind: string;
  locale: string;
  subject: string;
  text: string;
  html: string;
}

/** A claimed mail's row as its INSERT takes it. */
export interface ClaimedMailRow extends NewOutboxMail {
  leaseSeconds: number;
  /** The transport whose copy is the row itself (MailTransport.rowIsTheMail): the row is written sent. */
  deliveredBy: string | null;
}

/** A mail to write: claimed for `leaseMs`, or delivered by its commit when the row is the mail. */
export interface MailToWrite {
  row: NewOutboxMail;
  leaseMs: number;
  deliveredBy: string | null;
}

export function claimedMailRow({ row, leaseMs, deliveredBy }: MailToWrite): ClaimedMailRow {
  const { id, to, kind, locale, subject, text, html } = row;
  return { id, to, kind, locale, subject, text, html, leaseSeconds: leaseMs / 1000, deliveredBy };
}

/** The INSERT of a claimed mail (below); also part of an email sign-up's one write. */
export function insertClaimedMailQuery(db: TableInserter, mail: ClaimedMailRow) {
  const delivered = sql<boolean>`${mail.deliveredBy}::text IS NOT NULL`;
  return db.insertInto('mail_outbox').values({
    id: mail.id,
    to_address: mail.to,
    kind: mail.kind,
    locale: mail.locale,
    subject: mail.subject,
    text: mail.text,
    html: mail.html,
    attempts: 1,
    next_attempt_at: sql<Date>`now() + make_interval(secs => ${mail.leaseSeconds})`,
    status: sql<MailStatus>`CASE WHEN ${delivered} THEN 'sent' ELSE 'pending' END`,
    transport: mail.deliveredBy,
    sent_at: sql<Date | null>`CASE WHEN ${delivered} THEN now() END`,
  });
}

/**
 * A new mail, pending and already claimed by the instance that wrote it for its first send (attempt 1, due
 * again only when the lease runs out): that instance sends it right after commit, with no claim `UPDATE` in
 * between; if it dies first, the lease expires and any instance's retrier sends it. Where the row is the
 * mail (the log transport) it is written sent: its commit delivers it, and no sent mark follows. Every
 * sign-up writes one, so the statement is compiled (and prepared) once.
 */
const INSERT_CLAIMED_MAIL = Precompiled.named((db: Executor, mail: ClaimedMailRow) =>
  insertClaimedMailQuery(db, mail),
);

/** The SQL of the mail outbox. */
export class OutboxRepo {
  constructor(private readonly db: Executor) {}

  with(trx: Executor): OutboxRepo {
    return new OutboxRepo(trx);
  }

  /** Writes `mail` claimed by its writer, which sends it once the transaction commits (or delivered). */
  async insertClaimed(mail: MailToWrite): Promise<void> {
    await INSERT_CLAIMED_MAIL.execute(this.db, claimedMailRow(mail));
  }

  /**
   * Claims the earliest due mail for one send: one statement
   * counts the attempt and moves `next_attempt_at` `leaseMs` ahead, so no other sender (in this process or
   * another instance) picks it up meanwhile. `FOR UPDATE SKIP LOCKED` makes concurrent claimers take
   * different rows instead of waiting on each other. Runs on the (status, next_attempt_at) index.
   */
  async claim(leaseMs: number): Promise<MailOutboxRow | undefined> {
    const result = await sql<MailOutboxRow>`
      UPDATE mail_outbox SET attempts = attempts + 1,
        next_attempt_at = now() + make_interval(secs => ${leaseMs / 1000})
      WHERE id = (
        SELECT id FROM mail_outbox
        WHERE status = 'pending' AND next_attempt_at <= now()
        ORDER BY next_attempt_at
        LIMIT 1
        FOR UPDATE SKIP LOCKED
      )
      RETURNING *`.execute(this.db);
    return result.rows[0];
  }

  /**
   * Account deletion: the mails still waiting to go to this address are dropped (a verification or reset
   * link for an account that no longer exists must not arrive), and the sent and given-up rows, kept as the
   * delivery record, lose what identifies the person: the address is masked (`k***@example.com`) and the body
   * emptied (the development `log` transport keeps bodies, which hold the name and a link). On the
   * `lower(to_address)` index (migration 0013).
   */
  async forgetAddress(address: string): Promise<{ discarded: number; scrubbed: number }> {
    const matches = sql<boolean>`lower(to_address) = lower(${address})`;
    const discarded = await this.db
      .deleteFrom('mail_outbox')
      .where('status', '=', 'pending')
      .where(matches)
      .executeTakeFirst();
    const scrubbed = await this.db
      .updateTable('mail_outbox')
      .set({ to_address: maskAddress(address), text: null, html: null })
      .where(matches)
      .executeTakeFirst();
    // Mails held back by the cap are waiting too: no summary of them goes out (their lower(to_address) index).
    const folded = await this.db.deleteFrom('mail_folds').where(matches).executeTakeFirst();
    return {
      discarded: Number(discarded.numDeletedRows) + Number(folded.numDeletedRows),
      scrubbed: Number(scrubbed.numUpdatedRows),
    };
  }

  /** Keeps a mail the cap held back, without its body, until `dueAt` (the end of its address's window). */
  async insertFold(mail: NewOutboxMail, dueAt: Date): Promise<void> {
    const { id, to, kind, locale, subject } = mail;
    await this.db
      .insertInto('mail_folds')
      .values({ id, to_address: to, kind, locale, subject, due_at: dueAt })
      .execute();
  }

  /**
   * Delivered, the mails `ids` (a batch: see Mailer). The body is emptied unless the transport's copy is the
   * row itself (the log transport). One statement of one shape whatever the batch's size (`= ANY`).
   */
  async markSent(ids: readonly string[], transport: string, keepBody: boolean): Promise<void> {
    await this.db
      .updateTable('mail_outbox')
      .set({
        status: 'sent',
        transport,
        sent_at: sql<Date>`now()`,
        last_error: null,
        ...(keepBody ? {} : { text: null, html: null }),
      })
      .where(sql<boolean>`id = ANY(${ids}::uuid[])`)
      .execute();
  }

  /** Not delivered: due again after `retryInMs`, or given up (`undefined`), when its body is emptied too. */
  async markFailed(id: string, error: string, retryInMs: number | undefined): Promise<void> {
    await this.db
      .updateTable('mail_outbox')
      .set(
        retryInMs === undefined
          ? { status: 'failed', last_error: error, text: null, html: null }
          : {
              last_error: error,
              next_attempt_at: sql<Date>`now() + make_interval(secs => ${retryInMs / 1000})`,
            },
      )
      .where('id', '=', id)
      .execute();
  }
}
