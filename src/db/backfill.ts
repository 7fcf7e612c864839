import { usernameSkeleton } from '../lib/username-skeleton.js';
import type { RawSession } from './client.js';
import { isUniqueViolation } from './errors.js';

const BATCH = 500;

/**
 * Fills `users.username_skeleton` where it is missing (rows from before migration 0007): PostgreSQL has no
 * confusables table, so the SQL migration adds the column and this step computes it. Runs after the SQL
 * migrations, under their advisory lock. Idempotent and cheap once done (one indexed probe for NULLs).
 *
 * Two existing accounts whose names already look alike cannot both hold the skeleton: the older one keeps
 * the name's skeleton, the other is left NULL (it keeps its name; new look-alikes of it are still refused
 * through the first). Returns how many rows were filled and how many were left for that reason.
 */
export async function backfillUsernameSkeletons(
  session: RawSession,
): Promise<{ filled: number; clashes: number }> {
  const [column] = await session.query(
    `SELECT 1 FROM information_schema.columns WHERE table_name = 'users' AND column_name = 'username_skeleton'`,
  );
  if (!column) return { filled: 0, clashes: 0 };
  let filled = 0;
  let clashes = 0;
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const rows = await session.query<{ id: string; username: string }>(
      'SELECT id, username FROM users WHERE username_skeleton IS NULL AND id > $1 ORDER BY id LIMIT $2',
      [after, BATCH],
    );
    for (const row of rows) {
      try {
        await session.query(
          'UPDATE users SET username_skeleton = $1 WHERE id = $2 AND username_skeleton IS NULL',
          [usernameSkeleton(row.username), row.id],
        );
        filled += 1;
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        clashes += 1;
      }
    }
    const last = rows.at(-1);
    if (!last || rows.length < BATCH) return { filled, clashes };
    after = last.id;
  }
}
