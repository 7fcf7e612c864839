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
  /** UTS #39 skeleton of the username (look-alikes share one); NULL only on rows from before 0007. */
  username_skeleton: ColumnType<string | null, string | null | undefined, string | null>;
  slug: string;
  gender: number;
  bio: string | null;
  password_hash: string | null;
  profile_picture: ColumnType<ProfilePicture | null, string | null | undefined, string | null>;
  is_inspirer: Generated<boolean>;
  created_at: Timestamp;
  updated_at: Timestamp;
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
  schema_migrations: SchemaMigrationsTable;
}

export type UserRow = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;
export type ApiTokenRow = Selectable<ApiTokensTable>;
export type DeviceRow = Selectable<DevicesTable>;
