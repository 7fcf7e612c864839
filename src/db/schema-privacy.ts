import type { ColumnType, Generated } from 'kysely';
import type { Timestamp } from './column-types.js';

/* The tables of what users agree to, what happened to their account, and the copies of their data. */

export type DataExportStatus = 'pending' | 'ready' | 'expired' | 'failed';

/** A user's data export (migration 0018): built in the background, downloadable until `expires_at`. */
export interface DataExportsTable {
  id: string;
  user_id: string;
  status: ColumnType<DataExportStatus, DataExportStatus | undefined, DataExportStatus>;
  /** The language of the "your data is ready" mail (the request's Accept-Language). */
  locale: string;
  attempts: Generated<number>;
  next_attempt_at: Timestamp;
  last_error: string | null;
  /** The zip in the export store, while the export is ready. */
  file_key: string | null;
  created_at: Timestamp;
  ready_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  expires_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

/** 0016: the security activity log (src/modules/security-events). */
export interface SecurityEventsTable {
  id: string;
  user_id: string;
  type: string;
  at: Timestamp;
  ip: string | null;
  user_agent: string | null;
  device_key: string | null;
  counted_window: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  details: ColumnType<Record<string, unknown>, string | undefined, string>;
}

/** 0016: when an account last got an alert mail of a kind that must not flood. */
export interface SecurityAlertSlotsTable {
  user_id: string;
  kind: string;
  sent_at: ColumnType<Date, Date | string, Date | string>;
}

/** 0015: a document users agree to, and its current version. */
export interface ConsentDocumentsTable {
  key: string;
  current_version: number;
  required: boolean;
  updated_at: Timestamp;
}

/** A document's title and URL in one language. */
export interface ConsentText {
  title: string;
  url: string;
}

/** 0015: every published version of a document, its title and URL per language; 0023: its text. */
export interface ConsentDocumentVersionsTable {
  key: string;
  version: number;
  texts: ColumnType<Record<string, ConsentText>, string, string>;
  /** The document's text per language (plain text; the page escapes it), when the service serves its page. */
  bodies: ColumnType<Record<string, string>, string | undefined, string>;
  published_at: Timestamp;
}

/** How a consent record was made: by the user (sign-up, the app, the web pages) or by its expiry. */
export type ConsentChannel = 'register' | 'update' | 'web' | 'expiry';

/** 0015: one agreement or withdrawal (append-only). */
export interface ConsentRecordsTable {
  id: Generated<string>;
  user_id: string;
  key: string;
  version: number;
  agreed: boolean;
  channel: ConsentChannel;
  client_address: string | null;
  recorded_at: Timestamp;
}

/** 0015: the re-confirmation reminder of one agreement. */
export interface ConsentRemindersTable {
  record_id: string;
  reminded_at: Timestamp;
  resolved_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}
