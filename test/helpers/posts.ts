import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { type Kysely, sql } from 'kysely';
import type { Database } from '../../src/db/schema.js';
import { newId } from '../../src/lib/ids.js';
import { bearer } from './factories.js';
import { expectOk, type FilePart, postForm, postMultipart } from './http.js';
import type { Picture } from './media.js';

export interface Post {
  id: string;
  text: string;
  images: Picture[];
  author: Record<string, unknown> & { id: string };
  like_count: number;
  liked_by_me: boolean;
  created_at: string;
  updated_at: string;
}

export interface FeedPage {
  posts: Post[];
  next_cursor: string | null;
}

/** Publishes a post through the API: a form without images, multipart (`images[]`) with them. */
export function createPost(
  app: FastifyInstance,
  token: string | undefined,
  text: string | undefined,
  images: FilePart[] = [],
): Promise<LightMyRequestResponse> {
  const headers = token ? bearer(token) : {};
  if (images.length === 0) return postForm(app, '/v1/post/create', { text }, headers);
  return postMultipart(app, '/v1/post/create', { text }, { 'images[]': images }, headers);
}

export async function createdPost(app: FastifyInstance, token: string, text = 'hello'): Promise<Post> {
  return expectOk<{ post: Post }>(await createPost(app, token, text)).post;
}

export function postAction(
  app: FastifyInstance,
  token: string | undefined,
  id: string,
  action: 'like' | 'unlike' | 'delete',
): Promise<LightMyRequestResponse> {
  return postForm(app, `/v1/post/${id}/${action}`, {}, token ? bearer(token) : {});
}

export function getFeed(
  app: FastifyInstance,
  query: Record<string, string | number | undefined>,
  token?: string,
): Promise<LightMyRequestResponse> {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
  return app.inject({
    method: 'GET',
    url: `/v1/post/raw/feed?${params}`,
    headers: token ? bearer(token) : {},
  });
}

export async function feedPage(
  app: FastifyInstance,
  query: Record<string, string | number | undefined>,
  token?: string,
): Promise<FeedPage> {
  return expectOk<FeedPage>(await getFeed(app, query, token));
}

/**
 * Walks the feed from the first page to the last, calling `between` after each page with the ids seen so far
 * (to change the data while the walk is under way). Returns the ids in the order they came. Bounded, so a cursor that never ends
 * fails the test instead of hanging it.
 */
export async function walkFeed(
  app: FastifyInstance,
  options: { order: 'new' | 'hot'; limit: number; token?: string },
  between: (page: number, seen: readonly string[]) => Promise<void> = async () => {},
): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let page = 1; page <= 10_000; page++) {
    const data = await feedPage(app, { order: options.order, limit: options.limit, cursor }, options.token);
    ids.push(...data.posts.map((post) => post.id));
    if (data.next_cursor === null) return ids;
    cursor = data.next_cursor;
    await between(page, ids);
  }
  throw new Error('the feed never ended');
}

export interface SeedPost {
  id?: string;
  userId: string;
  createdAt: Date;
  likes: number;
  text?: string;
}

/**
 * Inserts posts straight into the table (the feed is what is tested, not publishing): like_count is set
 * without like rows, and the database generates hot_score as it does for every post. Returns their ids.
 */
export async function seedPosts(db: Kysely<Database>, posts: SeedPost[]): Promise<string[]> {
  const rows = posts.map((post) => ({
    id: post.id ?? newId(),
    user_id: post.userId,
    text: post.text ?? 'seeded',
    like_count: post.likes,
    created_at: post.createdAt,
    updated_at: post.createdAt,
  }));
  for (let i = 0; i < rows.length; i += 500) {
    await db
      .insertInto('posts')
      .values(rows.slice(i, i + 500))
      .execute();
  }
  return rows.map((row) => row.id);
}

/** Every post id in the table, in a feed order as the database sorts it. */
export async function allPostIds(db: Kysely<Database>, order: 'new' | 'hot'): Promise<string[]> {
  const rows =
    order === 'new'
      ? await sql<{ id: string }>`SELECT id FROM posts ORDER BY created_at DESC, id DESC`.execute(db)
      : await sql<{ id: string }>`SELECT id FROM posts ORDER BY hot_score DESC, id DESC`.execute(db);
  return rows.rows.map((row) => row.id);
}
