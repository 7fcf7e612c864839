import { ValidationError } from '../../errors.js';
import { iso } from '../../lib/time.js';
import type { AuthorPostsAfter, ModeratedPostRow, PostModerationRepo } from './moderation-repo.js';

/** Ids are UUIDs: anything else names no post. */
const POST_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A post as staff see it (the console): its text, counts and whether, when and why it is hidden. */
export interface ModeratedPostView {
  id: string;
  author: { id: string; username: string };
  text: string;
  image_count: number;
  like_count: number;
  created_at: string;
  /** Hidden because its author's deletion is scheduled (it comes back if the deletion is cancelled). */
  author_hidden: boolean;
  hidden_at: string | null;
  hidden_reason: string | null;
}

export interface AuthorPostsPage {
  posts: ModeratedPostView[];
  next_cursor: string | null;
}

function view(row: ModeratedPostRow): ModeratedPostView {
  return {
    id: row.id,
    author: { id: row.user_id, username: row.author_username },
    text: row.text,
    image_count: row.image_count,
    like_count: row.like_count,
    created_at: iso(row.created_at),
    author_hidden: row.author_hidden,
    hidden_at: row.hidden_at === null ? null : iso(row.hidden_at),
    hidden_reason: row.hidden_reason,
  };
}

/**
 * An author's page cursor: the last post's creation time and id, in the clear. It only says where a walk
 * through one author's posts goes on, which staff allowed to read them may see; a cursor made up by hand
 * reads the same author's posts from another place, nothing more. Anything but that shape is a 422.
 */
const encodeCursor = (after: AuthorPostsAfter) =>
  Buffer.from(`${after.createdAt.getTime()}.${after.id}`).toString('base64url');

function decodeCursor(text: string): AuthorPostsAfter {
  const match = /^(\d{1,15})\.([0-9a-f-]{36})$/.exec(Buffer.from(text, 'base64url').toString());
  if (!match || !POST_ID.test(match[2] as string)) throw new ValidationError({ cursor: [{ rule: 'regex' }] });
  return { createdAt: new Date(Number(match[1])), id: match[2] as string };
}

/**
 * Hiding posts and finding them, hidden ones too, for staff: the console's posts (account/console-content)
 * and the operator commands call it. Deleting one is the posts service's `removeAsOperator`.
 */
export class PostModeration {
  constructor(private readonly repo: PostModerationRepo) {}

  /** The post, hidden or not; undefined for an unknown id or one that is no id. */
  async find(postId: string): Promise<ModeratedPostView | undefined> {
    const row = POST_ID.test(postId) ? await this.repo.find(postId.toLowerCase()) : undefined;
    return row && view(row);
  }

  /** A page of the author's posts, newest first; `next_cursor` is null on the last page. */
  async byAuthor(userId: string, cursor: string | undefined, limit: number): Promise<AuthorPostsPage> {
    const after = cursor === undefined ? undefined : decodeCursor(cursor);
    const rows = await this.repo.byAuthor(userId, after, limit + 1);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    const more = rows.length > limit && last !== undefined;
    return {
      posts: page.map(view),
      next_cursor: more ? encodeCursor({ createdAt: last.created_at, id: last.id }) : null,
    };
  }

  /** Hides the post from the feed and the single post, keeping why; false when there is no such post. */
  hide(postId: string, reason: string): Promise<boolean> {
    return POST_ID.test(postId) ? this.repo.setHidden(postId.toLowerCase(), reason) : Promise.resolve(false);
  }

  /** Shows a hidden post again; false when there is no such post. */
  unhide(postId: string): Promise<boolean> {
    return POST_ID.test(postId) ? this.repo.setHidden(postId.toLowerCase(), null) : Promise.resolve(false);
  }
}
