import type { ColumnType } from 'kysely';

/* The access records (migration 0045, src/modules/access-records). */

/** A bigint: read as the driver gives it (text on PostgreSQL), written as text. */
type BigIntColumn = ColumnType<string | number | bigint, string, string>;

/** 0045: one access record, a link of the hash chain. */
export interface AccessRecordsTable {
  seq: BigIntColumn;
  at: ColumnType<Date, Date | string, never>;
  actor_kind: 'staff' | 'cli';
  actor: string;
  client_address: string | null;
  subject_id: string | null;
  action: string;
  reason: string | null;
  outcome: 'ok' | 'refused' | 'failed';
  /** JSON text on insert, an object on select. */
  detail: ColumnType<unknown, string, never>;
  prev_hash: string;
  hash: string;
}

/** 0045: the chain's one head row: the last record and the anchor verification starts from. */
export interface AccessRecordHeadTable {
  only_row: ColumnType<boolean, never, never>;
  last_seq: BigIntColumn;
  last_hash: string;
  anchor_seq: BigIntColumn;
  anchor_hash: string;
}
