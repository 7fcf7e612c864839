import type { UserRow } from '../../db/schema.js';
import { ValidationError } from '../../errors.js';
import { iso } from '../../lib/time.js';
import type { UserListCursorCodec } from './list-cursor.js';
import type { UserListRepo, UserMatch } from './list-repo.js';

export const USER_LIST_LIMIT = { min: 1, max: 100, default: 20 } as const;
/** Longer than any email, username or slug: a longer query matches nothing anyway. */
const MAX_QUERY_LENGTH = 255;
const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const FIRST_ID = '00000000-0000-0000-0000-000000000000';
const LAST_ID = 'ffffffff-ffff-ffff-ffff-ffffffffffff';

export interface UserListRequest {
  query?: string | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

/** One line of the operators' user list. */
export interface UserListItem {
  id: string;
  email: string;
  username: string;
  slug: string;
  disabled_at: string | null;
  created_at: string;
}

export interface UserListPage {
  users: UserListItem[];
  /** Where the next page starts, or null on the last one. */
  next_cursor: string | null;
}

/** `%`, `_` and the escape character itself stand for themselves: a query is never a pattern. */
const escapeLike = (text: string) => text.replace(/[\\%_]/g, (char) => `\\${char}`);

/**
 * What a query matches: users whose email, username or slug begins with it, case-insensitively (as the
 * unique lower(x) indexes compare them), and users whose id begins with it when it can begin a UUID.
 */
export function userMatch(query: string): UserMatch {
  const lower = query.toLowerCase();
  const first = lower + FIRST_ID.slice(lower.length);
  const last = lower + LAST_ID.slice(lower.length);
  return {
    pattern: `${escapeLike(query)}%`,
    ids: UUID_SHAPE.test(first) && UUID_SHAPE.test(last) ? [first, last] : undefined,
  };
}

function listItem(row: UserRow): UserListItem {
  return {
    id: row.id,
    email: row.email,
    username: row.username,
    slug: row.slug,
    disabled_at: row.disabled_at === null ? null : iso(row.disabled_at),
    created_at: iso(row.created_at),
  };
}

/** The operators' search of every account (`accounts user list`): keyset pages in id order. */
export class UserListService {
  constructor(
    private readonly repo: UserListRepo,
    private readonly cursors: UserListCursorCodec,
  ) {}

  async list(request: UserListRequest): Promise<UserListPage> {
    const limit = request.limit ?? USER_LIST_LIMIT.default;
    const query = request.query?.trim().normalize('NFC') ?? '';
    if (!Number.isSafeInteger(limit) || limit < USER_LIST_LIMIT.min || limit > USER_LIST_LIMIT.max) {
      throw new ValidationError({
        limit: [
          limit < USER_LIST_LIMIT.min
            ? { rule: 'min.numeric', params: { min: USER_LIST_LIMIT.min } }
            : { rule: 'max.numeric', params: { max: USER_LIST_LIMIT.max } },
        ],
      });
    }
    if (query.length > MAX_QUERY_LENGTH) {
      throw new ValidationError({ query: [{ rule: 'max.string', params: { max: MAX_QUERY_LENGTH } }] });
    }
    let afterId: string | undefined;
    if (request.cursor !== undefined) {
      const cursor = await this.cursors.decode(request.cursor);
      if (!cursor) throw new ValidationError({ cursor: [{ rule: 'in' }] });
      afterId = cursor.id;
    }
    // One more than the page: whether another follows, so next_cursor is null exactly on the last page.
    const rows = await this.repo.page(query === '' ? undefined : userMatch(query), afterId, limit + 1);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      users: page.map(listItem),
      next_cursor: rows.length > limit && last ? await this.cursors.encode({ id: last.id }) : null,
    };
  }
}
