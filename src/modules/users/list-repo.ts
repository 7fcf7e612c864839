import { sql } from 'kysely';
import type { UserRow } from '../../db/schema.js';
import type { Executor } from '../../db/transaction.js';

/** What a user list page matches: a prefix of lower(email|username|slug), and maybe a range of ids. */
export interface UserMatch {
  /** A LIKE pattern, its `%`, `_` and `\` escaped, ending in `%`. */
  pattern: string;
  /** The ids that begin with the query, when it can begin a UUID: [first, last]. */
  ids: [string, string] | undefined;
}

/** The operators' user list: keyset pages in id order, each read on an index. */
export class UserListRepo {
  constructor(private readonly db: Executor) {}

  /**
   * Up to `limit` users after `afterId`, in id order: with a match, on the lower(x) text_pattern_ops indexes
   * (migration 0038) and the primary key, OR-ed; without one, along the primary key. Never an OFFSET.
   */
  page(match: UserMatch | undefined, afterId: string | undefined, limit: number): Promise<UserRow[]> {
    let query = this.db.selectFrom('users').selectAll();
    if (match) {
      const { pattern, ids } = match;
      query = query.where((eb) =>
        eb.or([
          eb(sql`lower(email)`, 'like', sql`lower(${pattern})`),
          eb(sql`lower(username)`, 'like', sql`lower(${pattern})`),
          eb(sql`lower(slug)`, 'like', sql`lower(${pattern})`),
          ...(ids ? [eb.between('id', ids[0], ids[1])] : []),
        ]),
      );
    }
    if (afterId !== undefined) query = query.where('id', '>', afterId);
    return query.orderBy('id').limit(limit).execute();
  }

  /** The user list cursors' HMAC key (migration 0038). */
  async cursorKey(): Promise<Uint8Array> {
    const row = await this.db
      .selectFrom('service_secrets')
      .select('secret')
      .where('name', '=', 'user_list_cursor')
      .executeTakeFirstOrThrow();
    return row.secret;
  }
}
