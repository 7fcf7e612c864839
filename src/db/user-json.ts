import type { UserRow } from './schema.js';

/**
 * The users columns that are timestamps: in a row read as JSON (`to_jsonb(users.*)`) they arrive as ISO text
 * and become Dates here, as the driver makes them of a column. Every other column's JSON value is already its
 * row value (jsonb as objects, `date` as `YYYY-MM-DD`, booleans, numbers, text).
 */
const USER_TIMESTAMPS = [
  'created_at',
  'updated_at',
  'disabled_at',
  'deletion_scheduled_at',
  'deletion_due_at',
  'identity_verified_at',
  'guardian_pending_since',
] as const satisfies readonly (keyof UserRow)[];

type TimestampColumn = (typeof USER_TIMESTAMPS)[number];

/** A users row as `to_jsonb(users.*)` gives it: timestamps as text (null where the column may be null). */
export type UserJson = Omit<UserRow, TimestampColumn> & {
  [Column in TimestampColumn]: null extends UserRow[Column] ? string | null : string;
};

/** A nullable timestamp's JSON text as the Date (or null) the driver makes of the column. */
function timestamp(value: string | null): Date | null {
  return value === null ? null : new Date(value);
}

/**
 * The row of `to_jsonb(users.*)`. One JSON column costs the driver one field where the row's columns cost a
 * parser each on every query (node-postgres describes every column of every result): the hot token lookup
 * reads its owner this way (docs/performance.md). A timestamp column added to USER_TIMESTAMPS and not
 * turned into a Date here fails to compile.
 */
export function userFromJson(json: UserJson): UserRow {
  return {
    ...json,
    created_at: new Date(json.created_at),
    updated_at: new Date(json.updated_at),
    disabled_at: timestamp(json.disabled_at),
    deletion_scheduled_at: timestamp(json.deletion_scheduled_at),
    deletion_due_at: timestamp(json.deletion_due_at),
    identity_verified_at: timestamp(json.identity_verified_at),
    guardian_pending_since: timestamp(json.guardian_pending_since),
  };
}
