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

/** A users row as `to_jsonb(users.*)` gives it: timestamps as text. */
export type UserJson = Omit<UserRow, (typeof USER_TIMESTAMPS)[number]> &
  Record<(typeof USER_TIMESTAMPS)[number], string | null>;

/**
 * The row of `to_jsonb(users.*)`. One JSON column costs the driver one field where the row's columns cost a
 * parser each on every query (node-postgres describes every column of every result): the hot token lookup
 * reads its owner this way (docs/performance.md).
 */
export function userFromJson(json: UserJson): UserRow {
  const row = json as unknown as Record<string, unknown>;
  for (const column of USER_TIMESTAMPS) {
    const value = row[column];
    if (typeof value === 'string') row[column] = new Date(value);
  }
  return row as unknown as UserRow;
}
