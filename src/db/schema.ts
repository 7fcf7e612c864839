import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';

/** Columns the database fills in (timestamps with a default) but that may also be written. */
type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

export interface ProfilePicture {
  url: string;
  width: number;
  height: number;
  thumbnails: Record<string, string>;
  /** Storage keys of every stored file, so a replaced image can be removed; never sent to clients. */
  keys?: string[];
}

export interface UsersTable {
  id: string;
  email: string;
  username: string;
  slug: string;
  gender: number;
  bio: string | null;
  password_hash: string | null;
  profile_picture: ColumnType<ProfilePicture | null, string | null | undefined, string | null>;
  is_inspirer: Generated<boolean>;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** 0008: the user proved they read mail at `email`. */
  email_verified: Generated<boolean>;
}

export interface ApiTokensTable {
  id: string;
  user_id: string;
  token_hash: Uint8Array;
  name: string | null;
  created_at: Timestamp;
  last_used_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  expires_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

export interface ProviderAccountsTable {
  user_id: string;
  provider: string;
  provider_user_id: string;
  created_at: Timestamp;
}

export interface DevicesTable {
  id: string;
  user_id: string;
  device_id: string;
  platform: string | null;
  push_token: string | null;
  app_version: string | null;
  os_version: string | null;
  locale: string | null;
  timezone: string | null;
  push_enabled: Generated<boolean>;
  api_token_id: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** 0008: what a one-time token is for. */
export type OneTimeTokenPurpose = 'email_verify' | 'password_reset';

export interface OneTimeTokensTable {
  id: string;
  user_id: string;
  purpose: OneTimeTokenPurpose;
  token_hash: Uint8Array;
  /** The address the token was mailed to; it works only while this is still the user's email. */
  email: string;
  expires_at: ColumnType<Date, Date | string, Date | string>;
  used_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  created_at: Timestamp;
}

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

export interface SchemaMigrationsTable {
  version: string;
  applied_at: Timestamp;
}

/** The database as Kysely sees it; each issue's migrations add their tables here. */
export interface Database {
  users: UsersTable;
  api_tokens: ApiTokensTable;
  provider_accounts: ProviderAccountsTable;
  devices: DevicesTable;
  one_time_tokens: OneTimeTokensTable;
  mail_outbox: MailOutboxTable;
  schema_migrations: SchemaMigrationsTable;
}

export type UserRow = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;
export type ApiTokenRow = Selectable<ApiTokensTable>;
export type DeviceRow = Selectable<DevicesTable>;
export type MailOutboxRow = Selectable<MailOutboxTable>;
