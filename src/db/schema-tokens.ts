import type { ColumnType, JSONColumnType } from 'kysely';
import type { Timestamp } from './column-types.js';

/* The tables of the access tokens for other services (docs/tokens.md). */

type Time = ColumnType<Date, Date | string, Date | string>;

/** 0040: a key access tokens are signed with; its private part sealed with SECRETS_KEY. */
export interface SigningKeysTable {
  kid: string;
  alg: string;
  public_jwk: JSONColumnType<Record<string, string>>;
  private_sealed: string;
  created_at: Timestamp;
  publish_from: Time;
  sign_from: Time;
  retire_after: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

/** 0041: a service that may introspect tokens; only its secret's digest is kept. */
export interface ServiceCredentialsTable {
  id: string;
  name: string;
  client_id: string;
  secret_hash: Uint8Array;
  created_at: Timestamp;
  rotated_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}
