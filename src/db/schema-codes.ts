import type { ColumnType, Generated } from 'kysely';
import type { Timestamp } from './column-types.js';

/** Where a one-time code goes: a mailbox, or (later) a mobile number. */
export type CodeChannel = 'email' | 'phone';

/** What a one-time code proves the address for: signing in to its account, or creating one. */
export type CodePurpose = 'login' | 'register';

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
