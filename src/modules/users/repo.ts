import { sql } from 'kysely';
import type { NewUser, ProfilePicture, UserRow } from '../../db/schema.js';
import type { Executor } from '../../db/transaction.js';
import type { Column } from '../../validation/types.js';

/** The unique index behind each case-insensitive column, for turning a race lost at insert into a 422. */
const UNIQUE_INDEXES: Record<string, Column> = {
  users_email_lower_key: 'email',
  users_username_lower_key: 'username',
  users_slug_lower_key: 'slug',
};

export function fieldOfUsersIndex(constraint: string | undefined): Column | undefined {
  return constraint === undefined ? undefined : UNIQUE_INDEXES[constraint];
}

/** The columns user/update may change. */
export interface UserChanges {
  email?: string;
  username?: string;
  slug?: string;
  gender?: number;
  bio?: string | null;
  password_hash?: string;
  email_verified?: boolean;
}

export class UsersRepo {
  constructor(private readonly db: Executor) {}

  with(trx: Executor): UsersRepo {
    return new UsersRepo(trx);
  }

  findById(id: string): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The stored password hash, read under a share lock (no password change can commit until we do). */
  async passwordHashForShare(id: string): Promise<string | null | undefined> {
    const row = await this.db
      .selectFrom('users')
      .select('password_hash')
      .where('id', '=', id)
      .forShare()
      .executeTakeFirst();
    return row?.password_hash;
  }

  /** Case-insensitive, on the lower(email) unique index. */
  findByEmail(email: string): Promise<UserRow | undefined> {
    return this.db
      .selectFrom('users')
      .selectAll()
      .where(sql`lower(email)`, '=', sql`lower(${email})`)
      .executeTakeFirst();
  }

  /** Is `value` held by a user other than `exceptUserId`? One probe of the column's lower() unique index. */
  async taken(column: Column, value: string, exceptUserId?: string): Promise<boolean> {
    let query = this.db
      .selectFrom('users')
      .select('id')
      .where(sql`lower(${sql.ref(column)})`, '=', sql`lower(${value})`);
    if (exceptUserId !== undefined) query = query.where('id', '<>', exceptUserId);
    return (await query.executeTakeFirst()) !== undefined;
  }

  /** Which of these slugs are free, in one query (for deriving a slug without a query per candidate). */
  async freeSlugs(candidates: string[]): Promise<string[]> {
    if (candidates.length === 0) return [];
    const lowered = candidates.map((candidate) => candidate.toLowerCase());
    const rows = await this.db
      .selectFrom('users')
      .select(sql<string>`lower(slug)`.as('slug'))
      .where(sql`lower(slug)`, 'in', lowered)
      .execute();
    const used = new Set(rows.map((row) => row.slug));
    return candidates.filter((candidate) => !used.has(candidate.toLowerCase()));
  }

  async insert(user: NewUser): Promise<UserRow> {
    return this.db.insertInto('users').values(user).returningAll().executeTakeFirstOrThrow();
  }

  /** Changes the given profile fields (and `updated_at`); returns the row as it now is. */
  async update(id: string, changes: UserChanges): Promise<UserRow> {
    return this.db
      .updateTable('users')
      .set({ ...changes, updated_at: sql<Date>`now()` })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /**
   * Sets the profile picture and returns the one it replaced, in one statement: the row is locked while the
   * old value is read, so two concurrent replacements each get back exactly the picture they replaced.
   */
  async replaceProfilePicture(
    id: string,
    picture: ProfilePicture,
  ): Promise<{ row: UserRow; previous: ProfilePicture | null }> {
    const result = await sql<UserRow & { previous_picture: ProfilePicture | null }>`
      WITH old AS (SELECT id, profile_picture FROM users WHERE id = ${id} FOR UPDATE)
      UPDATE users SET profile_picture = ${JSON.stringify(picture)}::jsonb, updated_at = now()
      FROM old WHERE users.id = old.id
      RETURNING users.*, old.profile_picture AS previous_picture`.execute(this.db);
    const first = result.rows[0];
    if (!first) throw new Error('user row vanished');
    const { previous_picture: previous, ...row } = first;
    return { row, previous };
  }
}
