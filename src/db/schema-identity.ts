import type { ColumnType } from 'kysely';
import type { Timestamp } from './column-types.js';

/* The tables of carrier identity verification through PortOne (docs/identity.md). */

/** 0030: an id the service issued for one verification, bound to its user; valid 30 minutes, used once. */
export interface IdentityVerificationRequestsTable {
  id: string;
  user_id: string;
  created_at: Timestamp;
  used_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

/** 0030: the account's last verification: never the CI, the phone number or the full name. */
export interface IdentityVerificationsTable {
  user_id: string;
  /** HMAC-SHA256 of the CI under a key derived from SECRETS_KEY. */
  ci_hash: Uint8Array;
  /** The same hash while the account holds the person (IDENTITY_ONE_ACCOUNT_PER_PERSON); unique. */
  ci_binding: Uint8Array | null;
  /** `YYYY-MM-DD`. */
  birth_date: string;
  foreigner: boolean;
  /** The name with all but its first and last characters masked (김*지). */
  masked_name: string;
  verified_at: ColumnType<Date, Date | string, Date | string>;
  updated_at: Timestamp;
}
