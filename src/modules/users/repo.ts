import { sql } from 'kysely';
import type { NewUser, UserRow } from '../../db/schema.js';
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

export class UsersRepo {
  constructor(private readonly db: Executor) {}

  with(trx: Executor): UsersRepo {
    return new UsersRepo(trx);
  }

  findById(id: string): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
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
}
