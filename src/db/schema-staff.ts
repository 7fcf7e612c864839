import type { ColumnType } from 'kysely';
import type { Timestamp } from './column-types.js';

/* The staff tables of migrations 0044 and 0048 (docs/console.md). */

type NullableTime = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
type Nullable<T> = ColumnType<T | null, T | null | undefined, T | null>;

/** A staff member: apart from users, with their own password and second factor. */
export interface StaffTable {
  id: string;
  email: string;
  role: string;
  password_hash: Nullable<string>;
  totp_sealed: Nullable<string>;
  totp_last_step: ColumnType<string | null, number | null | undefined, number | null>;
  /** The factor chosen at enrollment; null until enrolled. */
  second_factor: Nullable<'totp' | 'passkey'>;
  /** The WebAuthn user handle of the member's passkeys. */
  webauthn_handle: Nullable<Uint8Array>;
  enrollment_token_hash: Nullable<Uint8Array>;
  enrollment_expires_at: NullableTime;
  enrolled_at: NullableTime;
  disabled_at: NullableTime;
  failed_attempts: ColumnType<number, number | undefined, number>;
  locked_until: NullableTime;
  created_at: Timestamp;
}

/** One grant, change or revocation of a staff member's rights; kept three years. */
export interface StaffRightsChangesTable {
  id: string;
  staff_id: string;
  staff_email: string;
  actor: string;
  action: string;
  role_before: Nullable<string>;
  role_after: Nullable<string>;
  created_at: Timestamp;
}

/** A staff session; only its token's digest. */
export interface StaffSessionsTable {
  id: string;
  staff_id: string;
  token_hash: Uint8Array;
  client_address: string;
  created_at: ColumnType<Date, Date | string, Date | string>;
  last_seen_at: ColumnType<Date, Date | string, Date | string>;
  expires_at: ColumnType<Date, Date | string, Date | string>;
}

/** A staff member's passkey: apart from the users' passkeys. */
export interface StaffPasskeysTable {
  id: string;
  staff_id: string;
  credential_id: Uint8Array;
  public_key: Uint8Array;
  sign_count: ColumnType<string | number | bigint, number | undefined, number>;
  transports: ColumnType<string[], string[] | undefined, string[]>;
  created_at: Timestamp;
  last_used_at: NullableTime;
}

/** A staff ceremony's challenge (its SHA-256): enrollment or sign-in, used once, five minutes. */
export interface StaffPasskeyChallengesTable {
  id: string;
  purpose: 'enrollment' | 'sign_in';
  staff_id: Nullable<string>;
  challenge_hash: Uint8Array;
  expires_at: ColumnType<Date, Date | string, Date | string>;
}
