import { sql } from 'kysely';
import type { Executor } from '../../db/transaction.js';

/** A post as staff see it: hidden or not, with its author's id and username. */
export interface ModeratedPostRow {
  id: string;
  user_id: string;
  author_username: string;
  text: string;
  image_count: number;
  like_count: number;
  created_at: Date;
  author_hidden: boolean;
  hidden_at: Date | null;
  hidden_reason: string | null;
}

/** Where an author's page of posts goes on from: the last post of the page before. */
export interface AuthorPostsAfter {
  createdAt: Date;
  id: string;
}

/** The console's reads and writes of posts: every post, hidden ones included (the feed's repo hides them). */
export class PostModerationRepo {
  constructor(private readonly db: Executor) {}

  private selectPosts() {
    return this.db
      .selectFrom('posts as p')
      .innerJoin('users as u', 'u.id', 'p.user_id')
      .select([
        'p.id',
        'p.user_id',
        'u.username as author_username',
        'p.text',
        sql<number>`jsonb_array_length(p.images)`.as('image_count'),
        'p.like_count',
        'p.created_at',
        'p.author_hidden',
        'p.hidden_at',
        'p.hidden_reason',
      ]);
  }

  /** One post on its primary key, hidden or not. */
  find(id: string): Promise<ModeratedPostRow | undefined> {
    return this.selectPosts().where('p.id', '=', id).executeTakeFirst();
  }

  /** An author's posts newest first, `limit` at most: one descent of posts_user_recent_idx from `after`. */
  byAuthor(userId: string, after: AuthorPostsAfter | undefined, limit: number): Promise<ModeratedPostRow[]> {
    let query = this.selectPosts().where('p.user_id', '=', userId);
    if (after !== undefined)
      query = query.where(
        sql<boolean>`(p.created_at, p.id) < (${after.createdAt}::timestamptz, ${after.id}::uuid)`,
      );
    return query.orderBy('p.created_at', 'desc').orderBy('p.id', 'desc').limit(limit).execute();
  }

  /** Hides the post with its reason, or shows it again (null); false when there is no such post. */
  async setHidden(id: string, reason: string | null): Promise<boolean> {
    const result = await this.db
      .updateTable('posts')
      .set({ hidden_at: reason === null ? null : sql<Date>`now()`, hidden_reason: reason })
      .where('id', '=', id)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }
}
