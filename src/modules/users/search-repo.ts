import { type RawBuilder, sql } from 'kysely';
import type { UserRow } from '../../db/schema.js';
import type { Executor } from '../../db/transaction.js';

/**
 * The text columns the console searches by, each with the expression its indexes are built on: the unique
 * lower(x) indexes (migration 0001) answer an exact search, the lower(x) text_pattern_ops ones (0038) a prefix
 * search and its order. The phone's key (0046) is the E.164 number, a space and the id, as a number may be on
 * several accounts: an exact number is the prefix `+821012345678 ` of it, so both are a range of its index.
 */
const KEYS = {
  email: sql<string>`lower(email)`,
  username: sql<string>`lower(username)`,
  slug: sql<string>`lower(slug)`,
  phone: sql<string>`(phone || ' ' || id::text)`,
} as const satisfies Record<string, RawBuilder<string>>;

export type TextSearchColumn = keyof typeof KEYS;
/** The columns one unique index answers exactly (a phone number is not unique: see `phoneKeyOf`). */
export type UniqueSearchColumn = Exclude<TextSearchColumn, 'phone'>;

/** The start of the phone key of every account holding `e164` exactly. */
export const phoneKeyOf = (e164: string) => `${e164} `;

/** What a search page shows of a user (never the password hash). */
export type SearchRow = Pick<
  UserRow,
  | 'id'
  | 'email'
  | 'username'
  | 'slug'
  | 'email_verified'
  | 'disabled_at'
  | 'deletion_due_at'
  | 'birth_date'
  | 'phone'
  | 'created_at'
> & {
  /** The value the page is ordered by (lower(x), the phone key, or the id): where the next page starts. */
  key: string;
};

const COLUMNS = [
  'id',
  'email',
  'username',
  'slug',
  'email_verified',
  'disabled_at',
  'deletion_due_at',
  'birth_date',
  'phone',
  'created_at',
] as const;

/** `%`, `_` and the escape character stand for themselves: a query is never a pattern. */
const escapeLike = (text: string) => text.replace(/[\\%_]/g, (char) => `\\${char}`);

/** The console's user search: each search one index scan, keyset pages, never an OFFSET. */
export class UserSearchRepo {
  constructor(private readonly db: Executor) {}

  /** The user whose column equals the value, case-insensitively (a unique index: at most one). */
  exact(column: UniqueSearchColumn, value: string): Promise<SearchRow[]> {
    const key = KEYS[column];
    return this.db
      .selectFrom('users')
      .select([...COLUMNS, key.as('key')])
      .where(key, '=', value.toLowerCase())
      .execute();
  }

  /**
   * Up to `limit` users whose column begins with `prefix`, after `after`, in the order of the text_pattern_ops
   * index (byte order of lower(x), `~<~`): the LIKE becomes the index's range and the order its scan.
   */
  prefix(
    column: TextSearchColumn,
    prefix: string,
    after: string | undefined,
    limit: number,
  ): Promise<SearchRow[]> {
    const key = KEYS[column];
    let query = this.db
      .selectFrom('users')
      .select([...COLUMNS, key.as('key')])
      .where(key, 'like', `${escapeLike(prefix.toLowerCase())}%`);
    if (after !== undefined) query = query.where(sql<boolean>`${key} ~>~ ${after}`);
    return query.orderBy(sql`${key} USING ~<~`).limit(limit).execute();
  }

  /** Users whose id lies in [first, last] after `after`, in id order: a range of the primary key. */
  idRange(first: string, last: string, after: string | undefined, limit: number): Promise<SearchRow[]> {
    let query = this.db
      .selectFrom('users')
      .select([...COLUMNS, sql<string>`id::text`.as('key')])
      .where('id', '>=', first)
      .where('id', '<=', last);
    if (after !== undefined) query = query.where('id', '>', after);
    return query.orderBy('id').limit(limit).execute();
  }

  /** The search cursors' HMAC key: the user list's (migration 0038), under a label of their own. */
  async cursorKey(): Promise<Uint8Array> {
    const row = await this.db
      .selectFrom('service_secrets')
      .select('secret')
      .where('name', '=', 'user_list_cursor')
      .executeTakeFirstOrThrow();
    return row.secret;
  }
}
