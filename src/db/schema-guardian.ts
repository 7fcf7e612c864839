import type { ColumnType, Generated } from 'kysely';
import type { Timestamp } from './column-types.js';

/* The tables of a legal guardian's consent for a child under 14 (docs/identity.md). */

export type GuardianLinkPurpose = 'consent' | 'withdraw';
export type GuardianConsentMethod = 'mailed_link' | 'identity_verification';

/** 0031: one mailed link to a guardian; erased with the child. */
export interface GuardianRequestsTable {
  id: string;
  user_id: string;
  purpose: GuardianLinkPurpose;
  guardian_email: string;
  token_hash: Uint8Array;
  created_at: Timestamp;
  expires_at: ColumnType<Date, Date | string, Date | string>;
  used_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

/** A document and version the child agreed to, as the guardian was shown it. */
export interface AgreedDocument {
  key: string;
  version: number;
}

/** 0031: a guardian's answer. */
export interface GuardianConsentsTable {
  id: string;
  user_id: string;
  method: GuardianConsentMethod;
  guardian_ci_hash: Uint8Array | null;
  agreed: boolean;
  /** JSON text on insert, the array on select. */
  documents: ColumnType<AgreedDocument[], string, string>;
  answered_at: Generated<Date>;
  withdrawn_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}
