import type { ColumnType, Generated } from 'kysely';
import type { Timestamp } from './column-types.js';

/* The tables of the second factors: TOTP with its recovery codes, and passkeys. */

/** 0020: a user's authenticator (TOTP); `enabled_at` NULL while the setup awaits its first code. */
export interface TotpCredentialsTable {
  user_id: string;
  /** Sealed with SECRETS_KEY (lib/secret-box.ts), bound to user_id. */
  secret: string;
  enabled_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** The time step of the last accepted code (bigint: the drivers return a string). */
  last_step: ColumnType<string | null, number | null | undefined, number | null>;
  created_at: Timestamp;
  /** 0024: wrong codes in a row since the last right one. */
  failed_attempts: Generated<number>;
  /** 0024: when the last wrong code came. */
  last_failed_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

/** 0020: the SHA-256 of each unused recovery code. */
export interface RecoveryCodesTable {
  user_id: string;
  code_hash: Uint8Array;
  created_at: Timestamp;
}

/** 0020: a sign-in waiting for its second factor. */
export interface SecondFactorChallengesTable {
  id: string;
  user_id: string;
  challenge_hash: Uint8Array;
  failures: Generated<number>;
  expires_at: ColumnType<Date, Date | string, Date | string>;
  created_at: Timestamp;
  /** 0022: the first factor of the sign-in (`email`, a provider, `password_reset`), for its security event. */
  method: Generated<string>;
  /** 0022: the first step presented a token of the account (the new-device check's proof). */
  known_device: Generated<boolean>;
  /** 0024: what a right code leads to: `sign_in`, or `deletion_cancel`. */
  purpose: Generated<string>;
}

/** 0019: the WebAuthn user handle of a user (random, stable; never the email or the id). */
export interface WebAuthnUserHandlesTable {
  user_id: string;
  handle: Uint8Array;
  created_at: Timestamp;
}

/** 0019: a passkey (WebAuthn credential) of a user. */
export interface PasskeysTable {
  id: string;
  user_id: string;
  credential_id: Uint8Array;
  public_key: Uint8Array;
  /** bigint in SQL (a counter is 32 bits unsigned): read back as a string or a bigint, per driver. */
  sign_count: ColumnType<string | number | bigint, number | undefined, number>;
  transports: ColumnType<string[], string[] | undefined, string[]>;
  device_type: 'singleDevice' | 'multiDevice';
  backed_up: boolean;
  name: string;
  created_at: Timestamp;
  last_used_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

export type WebAuthnChallengePurpose = 'registration' | 'authentication' | 'reauthentication';

/** 0019: a ceremony's single-use challenge (its SHA-256 only). */
export interface WebAuthnChallengesTable {
  id: string;
  purpose: WebAuthnChallengePurpose;
  user_id: string | null;
  challenge_hash: Uint8Array;
  expires_at: ColumnType<Date, Date | string, Date | string>;
  created_at: Timestamp;
}
