import type { ColumnType, Generated } from 'kysely';
import type { Timestamp } from './column-types.js';

/* The tables of the mail outbox and the per-address cap's folds (src/mail). */

export type MailStatus = 'pending' | 'sent' | 'failed';

export interface MailOutboxTable {
  id: string;
  to_address: string;
  kind: string;
  locale: string;
  subject: string;
  /** Emptied once delivered by SMTP: the body carries a secret link. */
  text: string | null;
  html: string | null;
  status: ColumnType<MailStatus, MailStatus | undefined, MailStatus>;
  /** Which transport delivered it (`log` or `smtp`). */
  transport: string | null;
  attempts: Generated<number>;
  next_attempt_at: Timestamp;
  last_error: string | null;
  created_at: Timestamp;
  sent_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

/** A mail the per-address cap held back, until its window's summary (no body: it may hold a link). */
export interface MailFoldsTable {
  id: string;
  to_address: string;
  kind: string;
  locale: string;
  subject: string;
  folded_at: Generated<Date>;
  due_at: Date;
}
