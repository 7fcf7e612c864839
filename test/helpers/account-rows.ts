import { type Kysely, sql } from 'kysely';
import type { Database } from '../../src/db/schema.js';

/** Every table that holds rows of a user, and the column naming the user. */
export const USER_TABLES = [
  ['users', 'id'],
  ['api_tokens', 'user_id'],
  ['devices', 'user_id'],
  ['provider_accounts', 'user_id'],
  ['posts', 'user_id'],
  ['post_likes', 'user_id'],
  ['one_time_tokens', 'user_id'],
  ['notification_outbox', 'user_id'],
  ['guardian_requests', 'user_id'],
  ['guardian_consents', 'user_id'],
] as const;

/** How many rows of the user each of USER_TABLES holds (all 0 once the account is erased). */
export async function rowsOf(db: Kysely<Database>, userId: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const [table, column] of USER_TABLES) {
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM ${sql.table(table)} WHERE ${sql.ref(column)} = ${userId}::uuid`.execute(
      db,
    );
    counts[table] = rows[0]?.n ?? -1;
  }
  return counts;
}

/** Marks the user's address verified, as following its mailed link does: security alerts go only to such. */
export async function markEmailVerified(db: Kysely<Database>, userId: string): Promise<void> {
  await sql`UPDATE users SET email_verified = true WHERE id = ${userId}`.execute(db);
}
