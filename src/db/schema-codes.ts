import type { ColumnType, Generated } from 'kysely';
import type { Timestamp } from './column-types.js';

/** Where a one-time code goes: a mailbox, or (later) a mobile number. */
export type CodeChannel = 'email' | 'phone';

/**
 * What a one-time code proves the address for: signing in to its account, creating one, or (0043) that the
 * signed-in user holds the mobile number they added to their profile.
 */
export type CodePurpose = 'login' | 'register' | 'verify_phone';

/** 0042: a one-time code and its link (account/one-time-codes). */
export interface OneTimeCodesTable {
  id: string;
  channel: CodeChannel;
  /** The lower-cased email, or an E.164 number. */
  address: string;
  purpose: CodePurpose;
  code_salt: Uint8Array;
  /** SHA-256 of `code_salt` followed by the code's digits. */
  code_hash: Uint8Array;
  /** SHA-256 of the link's token. */
  token_hash: Uint8Array;
  failures: Generated<number>;
  expires_at: ColumnType<Date, Date | string, Date | string>;
  used_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  created_at: Timestamp;
}

export type SmsStatus = 'pending' | 'sent' | 'failed';

/** 0043: a text message to send (src/sms), written with the code it carries. */
export interface SmsOutboxTable {
  id: string;
  /** E.164. */
  to_number: string;
  kind: string;
  /** Emptied once sent or given up: it carries a code. */
  body: string | null;
  status: ColumnType<SmsStatus, SmsStatus | undefined, SmsStatus>;
  attempts: Generated<number>;
  next_attempt_at: ColumnType<Date, Date | string | undefined, Date | string>;
  /** The code's end: a message still unsent then is given up. */
  expires_at: ColumnType<Date, Date | string, Date | string>;
  last_error: string | null;
  /** The gateway's message id, or `log`. */
  sent_by: string | null;
  created_at: Timestamp;
  sent_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}
