import { sql } from 'kysely';
import type { PostImage, PostRow } from '../../db/schema.js';
import type { Executor } from '../../db/transaction.js';
import type { FeedCursor, FeedOrder } from './cursor.js';
import { type FeedRow, type JoinedRow, toFeedRow } from './rows.js';

export interface NewPost {
  id: string;
  userId: string;
  text: string;
  images: PostImage[];
}

export class PostsRepo {
  constructor(private readonly db: Executor) {}

  with(trx: Executor): PostsRepo {
    return new PostsRepo(trx);
  }

  /**
   * Posts with their authors and the viewer's like, in ONE statement: a join on users' primary key and a
   * probe of post_likes' primary key per row (no query per post).
   */
  private selectPosts(viewerId: string | undefined) {
    return (
      this.db
        .selectFrom('posts as p')
        .innerJoin('users as u', 'u.id', 'p.user_id')
        // The posts of an account scheduled for deletion, and those staff hid, cannot be found. Written as a
        // constant predicate (never a parameter), so that it matches the feed indexes' own (`WHERE NOT
        // author_hidden AND hidden_at IS NULL`) in every plan, prepared generic ones included.
        .where(sql<boolean>`NOT p.author_hidden AND p.hidden_at IS NULL`)
        .select([
          'p.id',
          'p.text',
          'p.images',
          'p.like_count',
          'p.created_at',
          'p.updated_at',
          'p.hot_score',
          'u.id as author_id',
          'u.username as author_username',
          'u.slug as author_slug',
          'u.gender as author_gender',
          'u.bio as author_bio',
          'u.profile_picture as author_profile_picture',
          'u.is_inspirer as author_is_inspirer',
          'u.created_at as author_created_at',
          'u.updated_at as author_updated_at',
        ])
        .select(
          sql<Date>`date_trunc('milliseconds', statement_timestamp()) + interval '1 millisecond'`.as(
            'read_bound',
          ),
        )
        .leftJoinLateral(
          (eb) =>
            eb
              .selectFrom('post_likes as l')
              .select(sql<boolean>`true`.as('liked'))
              .whereRef('l.post_id', '=', 'p.id')
              // No viewer: NULL matches no row, and liked_by_me is false.
              .where('l.user_id', '=', viewerId ?? sql<string>`NULL`)
              // LIMIT 1 keeps this a probe of the primary key per row of the page: as a plain EXISTS the
              // planner may hash *all* of the viewer's likes instead, a cost that grows with how much they like.
              .limit(1)
              .as('lk'),
          (join) => join.onTrue(),
        )
        .select(sql<boolean>`coalesce(lk.liked, false)`.as('liked_by_me'))
    );
  }

  async find(id: string, viewerId: string | undefined): Promise<FeedRow | undefined> {
    const row = await this.selectPosts(viewerId).where('p.id', '=', id).executeTakeFirst();
    return row && toFeedRow(row as JoinedRow);
  }

  /**
   * One page of the feed: one descent of posts_new_idx or posts_hot_idx from the cursor (a row comparison the
   * index answers directly), never an OFFSET. `limit` rows at most.
   */
  async page(options: {
    order: FeedOrder;
    limit: number;
    after: FeedCursor | undefined;
    viewerId: string | undefined;
  }): Promise<FeedRow[]> {
    const { order, after } = options;
    let query = this.selectPosts(options.viewerId);
    if (order === 'new') {
      if (after?.order === 'new')
        query = query.where(
          sql<boolean>`(p.created_at, p.id) < (${after.createdAt}::timestamptz, ${after.id}::uuid)`,
        );
      query = query.orderBy('p.created_at', 'desc').orderBy('p.id', 'desc');
    } else {
      if (after?.order === 'hot') {
        query = query
          .where(sql<boolean>`(p.hot_score, p.id) < (${after.score}::double precision, ${after.id}::uuid)`)
          .where('p.created_at', '<=', after.bound);
      }
      query = query.orderBy('p.hot_score', 'desc').orderBy('p.id', 'desc');
    }
    const rows = await query.limit(options.limit).execute();
    return rows.map((row) => toFeedRow(row as JoinedRow));
  }

  async insert(post: NewPost): Promise<PostRow> {
    return this.db
      .insertInto('posts')
      .values({ id: post.id, user_id: post.userId, text: post.text, images: JSON.stringify(post.images) })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /** True when the post exists (on the primary key); undefined otherwise, as a lookup's "not found". */
  async exists(id: string): Promise<true | undefined> {
    const row = await this.db.selectFrom('posts').select('id').where('id', '=', id).executeTakeFirst();
    return row ? true : undefined;
  }

  /** The post's owner and images, its row locked until the transaction ends (a delete follows). */
  lockForDelete(id: string): Promise<Pick<PostRow, 'user_id' | 'images'> | undefined> {
    return this.db
      .selectFrom('posts')
      .select(['user_id', 'images'])
      .where('id', '=', id)
      .forUpdate()
      .executeTakeFirst();
  }

  /** Deletes a post (its likes go with it); its images, for removing the files after commit. */
  async delete(id: string): Promise<PostImage[] | undefined> {
    const row = await this.db.deleteFrom('posts').where('id', '=', id).returning('images').executeTakeFirst();
    return row?.images;
  }

  /**
   * Hides or shows again every post of a user (on posts_user_recent_idx): the account's deletion is scheduled,
   * or taken back. Likes given to the posts stay, so a restored post comes back with its count.
   */
  async setAuthorHidden(userId: string, hidden: boolean): Promise<void> {
    await this.db
      .updateTable('posts')
      .set({ author_hidden: hidden })
      .where('user_id', '=', userId)
      .where('author_hidden', '=', !hidden)
      .execute();
  }

  /** Deletes every post of a user (on posts_user_recent_idx); their images, for removing after commit. */
  async deleteByUser(userId: string): Promise<PostImage[]> {
    const rows = await this.db
      .deleteFrom('posts')
      .where('user_id', '=', userId)
      .returning('images')
      .execute();
    return rows.flatMap((row) => row.images);
  }

  /**
   * Records the like; true when this call made it (false when the user already liked the post, or the post
   * does not exist). ON CONFLICT DO NOTHING on the primary key: of concurrent likes by one user, exactly one
   * inserts; the others wait for it and then do nothing.
   */
  async addLike(postId: string, userId: string): Promise<boolean> {
    const rows = await sql<{ post_id: string }>`
      INSERT INTO post_likes (post_id, user_id)
      SELECT id, ${userId}::uuid FROM posts WHERE id = ${postId}::uuid
      ON CONFLICT DO NOTHING
      RETURNING post_id`.execute(this.db);
    return rows.rows.length === 1;
  }

  /** Removes the like; true when this call removed it. Of concurrent unlikes, exactly one deletes the row. */
  async removeLike(postId: string, userId: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('post_likes')
      .where('post_id', '=', postId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return result.numDeletedRows === 1n;
  }

  /**
   * Moves the count by what this transaction really changed (+1 or −1). The UPDATE takes the row lock and
   * re-reads the latest like_count under it, so concurrent likes of one post add up exactly; hot_score is
   * generated from like_count by the database in the same statement.
   */
  async adjustLikeCount(postId: string, delta: 1 | -1): Promise<void> {
    await this.db
      .updateTable('posts')
      .set((eb) => ({ like_count: eb('like_count', '+', delta) }))
      .where('id', '=', postId)
      .execute();
  }

  /**
   * Takes back every like of a user (account deletion): each liked post's like_count (and so its generated
   * hot_score) drops by one in the caller's transaction, then the likes go. The cascade from users alone would
   * leave the counts one too high. Locks in the order an unlike takes them — the like rows first, then their
   * posts (in id order) — so a concurrent unlike by the user, or likes by others, queue instead of
   * deadlocking. On post_likes_user_id_idx and the posts primary key. Returns how many likes were taken back.
   */
  async unlikeAllOf(userId: string): Promise<number> {
    await sql`
      SELECT post_id FROM post_likes WHERE user_id = ${userId}::uuid ORDER BY post_id FOR UPDATE`.execute(
      this.db,
    );
    await sql`
      SELECT p.id FROM posts p
      WHERE p.id IN (SELECT post_id FROM post_likes WHERE user_id = ${userId}::uuid)
      ORDER BY p.id
      FOR UPDATE OF p`.execute(this.db);
    await sql`
      UPDATE posts SET like_count = posts.like_count - 1
      FROM post_likes l
      WHERE l.post_id = posts.id AND l.user_id = ${userId}::uuid`.execute(this.db);
    const removed = await this.db.deleteFrom('post_likes').where('user_id', '=', userId).executeTakeFirst();
    return Number(removed.numDeletedRows);
  }

  /** One author's posts in id order (UUIDv7: creation order) after `afterId`: a walk of posts_user_id_id_idx. */
  authoredPage(userId: string, afterId: string | undefined, limit: number): Promise<PostRow[]> {
    let query = this.db.selectFrom('posts').selectAll().where('user_id', '=', userId);
    if (afterId !== undefined) query = query.where('id', '>', afterId);
    return query.orderBy('id').limit(limit).execute();
  }

  /** One user's likes in post-id order after `afterPostId`: a walk of post_likes_user_id_idx. */
  likesPage(
    userId: string,
    afterPostId: string | undefined,
    limit: number,
  ): Promise<{ post_id: string; created_at: Date }[]> {
    let query = this.db
      .selectFrom('post_likes')
      .select(['post_id', 'created_at'])
      .where('user_id', '=', userId);
    if (afterPostId !== undefined) query = query.where('post_id', '>', afterPostId);
    return query.orderBy('post_id').limit(limit).execute();
  }

  /** The HMAC key of feed cursors (created by migration 0004). */
  async secret(name: string): Promise<Uint8Array> {
    const row = await this.db
      .selectFrom('service_secrets')
      .select('secret')
      .where('name', '=', name)
      .executeTakeFirstOrThrow();
    return row.secret;
  }

  /**
   * Which of these media keys a post's images still use (on the GIN index of migration 0009): the orphan
   * sweep must never take a post's files for leftovers.
   */
  async referencedMediaKeys(keys: readonly string[]): Promise<string[]> {
    if (keys.length === 0) return [];
    const { rows } = await sql<{ key: string }>`
      SELECT k AS key
      FROM posts CROSS JOIN LATERAL jsonb_array_elements_text(jsonb_path_query_array(posts.images, '$[*].keys[*]')) AS k
      WHERE jsonb_path_query_array(posts.images, '$[*].keys[*]') ?| ${sql.val([...keys])}::text[]`.execute(
      this.db,
    );
    const wanted = new Set(keys);
    return rows.map((row) => row.key).filter((key) => wanted.has(key));
  }
}
