import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';
import type { ProfilePicture, Timestamp } from './column-types.js';
import type { AccessRecordHeadTable, AccessRecordsTable } from './schema-audit.js';
import type { OneTimeCodesTable, SmsOutboxTable } from './schema-codes.js';
import type { BannersTable, InspirersTable, PostLikesTable, PostsTable } from './schema-content.js';
import type {
  AccountEventsTable,
  WebhookAttemptsTable,
  WebhookDeliveriesTable,
  WebhookEndpointsTable,
} from './schema-events.js';
import type {
  PasskeysTable,
  RecoveryCodesTable,
  SecondFactorChallengesTable,
  TotpCredentialsTable,
  WebAuthnChallengesTable,
  WebAuthnUserHandlesTable,
} from './schema-factors.js';
import type { GuardianConsentsTable, GuardianRequestsTable } from './schema-guardian.js';
import type { IdentityVerificationRequestsTable, IdentityVerificationsTable } from './schema-identity.js';
import type { MailFoldsTable, MailOutboxTable, MailStatus } from './schema-mail.js';
import type {
  ConsentDocumentsTable,
  ConsentDocumentVersionsTable,
  ConsentRecordsTable,
  ConsentRemindersTable,
  DataExportsTable,
  SecurityAlertSlotsTable,
  SecurityEventsTable,
} from './schema-privacy.js';
import type {
  StaffPasskeyChallengesTable,
  StaffPasskeysTable,
  StaffRightsChangesTable,
  StaffSessionsTable,
  StaffTable,
} from './schema-staff.js';
import type { ServiceCredentialsTable, SigningKeysTable } from './schema-tokens.js';

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
  /** Set by an operator: the user cannot sign in and no token of theirs is accepted. */
  disabled_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** 0008: the user proved they read mail at `email`. */
  email_verified: Generated<boolean>;
  /** 0017: when the user asked for their account's deletion; NULL unless it is scheduled. */
  deletion_scheduled_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** 0017: when the server erases the scheduled account (set exactly when deletion_scheduled_at is). */
  deletion_due_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** 0029: declared at sign-up (`YYYY-MM-DD`), or the verified identity's, which replaces it. */
  birth_date: ColumnType<string | null, string | null | undefined, string | null>;
  /** 0029: when a carrier identity verification (PortOne) last confirmed the account's person. */
  identity_verified_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** 0029: a child's legal guardian's consent: pending until a guardian answers; NULL when none is needed. */
  guardian_consent: ColumnType<
    GuardianConsentState | null,
    GuardianConsentState | null | undefined,
    GuardianConsentState | null
  >;
  /** 0036: when a wait for the guardian began after sign-up (a verified identity under 14); else NULL. */
  guardian_pending_since: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** 0033: the versions of each document the account agreed to, written only by the database's trigger. */
  agreed_consents: ColumnType<AgreedConsents, never, never>;
  /** 0043: a mobile number in E.164, proved by a code only when `phone_verified`. */
  phone: ColumnType<string | null, string | null | undefined, string | null>;
  /** 0043: the number's code was entered; a verified number belongs to one account (a unique index). */
  phone_verified: Generated<boolean>;
}

export type GuardianConsentState = 'pending' | 'granted';
/** The versions of each document the account agreed to, `{"terms": [1, 2]}` (0033: kept by a trigger). */
export type AgreedConsents = Record<string, number[]>;

export interface ApiTokensTable {
  id: string;
  user_id: string;
  token_hash: Uint8Array;
  name: string | null;
  created_at: Timestamp;
  last_used_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  expires_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** The end of the session's re-authentication window (user/reauth), if one was opened. */
  reauthenticated_until: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** How many factors opened that window (1 or 2); null counts as 1. */
  reauth_factors: ColumnType<number | null, number | null | undefined, number | null>;
  /** 0040: the session's sign-in method (SessionMethod); null for a session whose event was gone. */
  sign_in_method: ColumnType<string | null, string | null | undefined, string | null>;
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

export interface ServiceSecretsTable {
  name: string;
  secret: Uint8Array;
}

/** What a push carries: shown by the device (title, body) and handed to the app (data, strings only). */
export interface PushPayload {
  title: string;
  body: string;
  data: Record<string, string>;
}

export interface NotificationOutboxTable {
  id: string;
  user_id: string;
  device_id: string;
  payload: ColumnType<PushPayload, string, string>;
  status: 'sent' | 'failed';
  error: string | null;
  created_at: Timestamp;
}

/** 0008: what a one-time token is for (0017: taking back a scheduled deletion). */
export type OneTimeTokenPurpose = 'email_verify' | 'password_reset' | 'deletion_cancel';

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

export interface SchemaMigrationsTable {
  version: string;
  applied_at: Timestamp;
}

/** The first answer of a write sent with an Idempotency-Key (migration 0021, modules/idempotency). */
export interface IdempotencyKeysTable {
  key_hash: Uint8Array;
  fingerprint: Uint8Array;
  user_id: string;
  answer: Uint8Array;
  created_at: Timestamp;
}

export type { MailStatus };

/** The database as Kysely sees it. */
export interface Database {
  users: UsersTable;
  idempotency_keys: IdempotencyKeysTable;
  api_tokens: ApiTokensTable;
  provider_accounts: ProviderAccountsTable;
  devices: DevicesTable;
  banners: BannersTable;
  inspirers: InspirersTable;
  notification_outbox: NotificationOutboxTable;
  one_time_tokens: OneTimeTokensTable;
  one_time_codes: OneTimeCodesTable;
  sms_outbox: SmsOutboxTable;
  mail_outbox: MailOutboxTable;
  mail_folds: MailFoldsTable;
  schema_migrations: SchemaMigrationsTable;
  posts: PostsTable;
  post_likes: PostLikesTable;
  service_secrets: ServiceSecretsTable;
  data_exports: DataExportsTable;
  security_events: SecurityEventsTable;
  account_events: AccountEventsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  guardian_requests: GuardianRequestsTable;
  guardian_consents: GuardianConsentsTable;
  security_alert_slots: SecurityAlertSlotsTable;
  consent_documents: ConsentDocumentsTable;
  consent_document_versions: ConsentDocumentVersionsTable;
  consent_records: ConsentRecordsTable;
  consent_reminders: ConsentRemindersTable;
  totp_credentials: TotpCredentialsTable;
  recovery_codes: RecoveryCodesTable;
  second_factor_challenges: SecondFactorChallengesTable;
  webauthn_user_handles: WebAuthnUserHandlesTable;
  passkeys: PasskeysTable;
  webauthn_challenges: WebAuthnChallengesTable;
  identity_verification_requests: IdentityVerificationRequestsTable;
  identity_verifications: IdentityVerificationsTable;
  signing_keys: SigningKeysTable;
  service_credentials: ServiceCredentialsTable;
  staff: StaffTable;
  staff_rights_changes: StaffRightsChangesTable;
  staff_sessions: StaffSessionsTable;
  staff_passkeys: StaffPasskeysTable;
  staff_passkey_challenges: StaffPasskeyChallengesTable;
  access_records: AccessRecordsTable;
  access_record_head: AccessRecordHeadTable;
}

export type UserRow = Selectable<UsersTable>;
/** A user row with the names of its linked identity providers, read in the same query (what a sign-in shows). */
export type UserWithProviders = UserRow & {
  linked_providers: string[];
  /** The user has a second factor on (read in the same query: the login needs it once the password is right). */
  second_factor_enabled: boolean;
};
export type NewUser = Insertable<UsersTable>;
export type ApiTokenRow = Selectable<ApiTokensTable>;
export type DeviceRow = Selectable<DevicesTable>;
export type PostRow = Selectable<PostsTable>;
export type BannerRow = Selectable<BannersTable>;
export type NotificationOutboxRow = Selectable<NotificationOutboxTable>;
export type MailOutboxRow = Selectable<MailOutboxTable>;
export type MailFoldRow = Selectable<MailFoldsTable>;
export type DataExportRow = Selectable<DataExportsTable>;
export type SecurityEventRow = Selectable<SecurityEventsTable>;
export type PasskeyRow = Selectable<PasskeysTable>;

export type { ProfilePicture, Timestamp } from './column-types.js';
export type * from './schema-codes.js';
export type * from './schema-content.js';
export type * from './schema-factors.js';
export type * from './schema-identity.js';
export type * from './schema-privacy.js';
