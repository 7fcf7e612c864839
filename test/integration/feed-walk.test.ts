import { beforeAll, describe, expect, it } from 'vitest';
import { hotScore } from '../../src/modules/posts/hot-score.js';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { type RegisteredUser, registerUser } from '../helpers/factories.js';
import { expectOk, expectValidationError, postJson } from '../helpers/http.js';
import {
  createdPost,
  type FeedPage,
  feedPage,
  getFeed,
  type SeedPost,
  seedPosts,
  walkFeed,
} from '../helpers/posts.js';

const POSTS = 250;
const HOUR = 3_600_000;

interface Known {
  id: string;
  createdAt: Date;
  likes: number;
}

/** The feed orders computed here, independently of the database: newest first, and by the hot formula. */
function expectedOrder(posts: Known[], order: 'new' | 'hot'): string[] {
  const key = (post: Known) =>
    order === 'new' ? post.createdAt.getTime() : hotScore(post.likes, post.createdAt);
  return [...posts]
    .sort((a, b) => key(b) - key(a) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
    .map((post) => post.id);
}

describe.each(backends)('%s: walking the feed page by page', (backend) => {
  const ctx = useTestApp(backend);
  const known: Known[] = [];
  let viewer: RegisteredUser;

  beforeAll(async () => {
    const authors = [await registerUser(ctx.app), await registerUser(ctx.app), await registerUser(ctx.app)];
    viewer = authors[0] as RegisteredUser;
    // A few through the API, as a client makes them...
    for (const author of authors) {
      const post = await createdPost(ctx.app, author.token, `from ${author.username}`);
      known.push({ id: post.id, createdAt: new Date(post.created_at), likes: 0 });
    }
    // ...and the rest straight into the table: spread over 40 days, mixed likes (many 0 and 1, which score
    // alike), and runs of posts sharing one millisecond so the id has to break ties in both orders.
    const now = Date.now();
    const seeds: SeedPost[] = Array.from({ length: POSTS - known.length }, (_, i) => ({
      userId: (authors[i % 3] as RegisteredUser).id,
      createdAt: new Date(now - HOUR - Math.floor(i / 4) * 977_123 - (i % 7 === 0 ? 0 : i)),
      likes: i % 5 === 0 ? 0 : i % 5 === 1 ? 1 : (i * 7919) % 2000,
    }));
    const ids = await seedPosts(ctx.database.handle.db, seeds);
    seeds.forEach((seed, i) => {
      known.push({ id: ids[i] as string, createdAt: seed.createdAt, likes: seed.likes });
    });
  });

  describe.each(['new', 'hot'] as const)('order=%s', (order) => {
    it.each([1, 7, 100])('at limit %i sees every post exactly once, in order', async (limit) => {
      const walked = await walkFeed(ctx.app, { order, limit });
      expect(walked).toHaveLength(POSTS);
      expect(new Set(walked).size).toBe(POSTS);
      expect(walked).toEqual(expectedOrder(known, order));
    });
  });

  it('defaults to new, 20 a page, with whole posts and authors', async () => {
    const page = await feedPage(ctx.app, {});
    expect(page.posts).toHaveLength(20);
    expect(page.posts.map((post) => post.id)).toEqual(expectedOrder(known, 'new').slice(0, 20));
    expect(page.next_cursor).toEqual(expect.any(String));
    const first = page.posts[0];
    expect(first?.author).toEqual({
      id: expect.any(String),
      username: expect.any(String),
      slug: expect.any(String),
      gender: 0,
      bio: null,
      profile_picture: null,
      is_inspirer: false,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(Object.keys(first ?? {}).sort()).toEqual(
      ['author', 'created_at', 'id', 'images', 'like_count', 'liked_by_me', 'text', 'updated_at'].sort(),
    );
  });

  it('answers POST with a JSON body the same as GET', async () => {
    const get = await feedPage(ctx.app, { order: 'hot', limit: 5 });
    const post = expectOk<FeedPage>(await postJson(ctx.app, '/v1/post/raw/feed', { order: 'hot', limit: 5 }));
    expect(post.posts).toEqual(get.posts);
    const next = expectOk<FeedPage>(
      await postJson(ctx.app, '/v1/post/raw/feed', { order: 'hot', limit: 5, cursor: post.next_cursor }),
    );
    expect(next.posts.map((p) => p.id)).toEqual(expectedOrder(known, 'hot').slice(5, 10));
  });

  it('shows the viewer their likes and nobody else', async () => {
    const top = (await feedPage(ctx.app, { limit: 3 })).posts;
    const liked = top[1]?.id as string;
    expectOk(
      await ctx.app.inject({
        method: 'POST',
        url: `/v1/post/${liked}/like`,
        headers: { authorization: `Bearer ${viewer.token}` },
      }),
    );
    const mine = await feedPage(ctx.app, { limit: 3 }, viewer.token);
    expect(mine.posts.map((post) => post.liked_by_me)).toEqual([false, true, false]);
    const anonymous = await feedPage(ctx.app, { limit: 3 });
    expect(anonymous.posts.map((post) => post.liked_by_me)).toEqual([false, false, false]);
    expect(anonymous.posts[1]?.like_count).toBe(1);
  });

  it('refuses a bad order or limit with a 422 naming the field', async () => {
    expectValidationError(await getFeed(ctx.app, { order: 'sideways' }), {
      order: ['The selected order is invalid.'],
    });
    expectValidationError(await getFeed(ctx.app, { limit: 0 }), { limit: ['The limit must be at least 1.'] });
    expectValidationError(await getFeed(ctx.app, { limit: 101 }), {
      limit: ['The limit may not be greater than 100.'],
    });
    expectValidationError(await getFeed(ctx.app, { limit: 'abc' }), {
      limit: ['The limit must be an integer.'],
    });
    expectValidationError(await getFeed(ctx.app, { limit: '2.5', order: 'HOT' }), {
      order: ['The selected order is invalid.'],
      limit: ['The limit must be an integer.'],
    });
    const korean = await ctx.app.inject({
      method: 'GET',
      url: '/v1/post/raw/feed?order=old&limit=0',
      headers: { 'accept-language': 'ko' },
    });
    expectValidationError(korean, {
      order: ['선택된 정렬은 유효하지 않습니다.'],
      limit: ['개수는 1 이상이어야 합니다.'],
    });
  });

  it('refuses a garbage, forged or other-order cursor with a 422 on cursor', async () => {
    const invalid = { cursor: ['The selected cursor is invalid.'] };
    const hot = (await feedPage(ctx.app, { order: 'hot', limit: 2 })).next_cursor as string;
    const fresh = (await feedPage(ctx.app, { order: 'new', limit: 2 })).next_cursor as string;
    for (const garbage of ['abc', '.', 'a.b.c', `${'A'.repeat(600)}`, '%00', '{"o":"new"}', '😀.😀']) {
      expectValidationError(await getFeed(ctx.app, { cursor: garbage }), invalid);
    }
    // Forged: the payload rewritten (an earlier position, say) under the original signature.
    const [payload, signature] = fresh.split('.') as [string, string];
    const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...decoded, t: decoded.t + 1 })).toString('base64url');
    expectValidationError(await getFeed(ctx.app, { cursor: `${forged}.${signature}` }), invalid);
    // A signature one bit off.
    const flipped = Buffer.from(signature, 'base64url');
    flipped[0] = (flipped[0] ?? 0) ^ 1;
    expectValidationError(
      await getFeed(ctx.app, { cursor: `${payload}.${flipped.toString('base64url')}` }),
      invalid,
    );
    // A cursor of the other order walks the wrong index.
    expectValidationError(await getFeed(ctx.app, { order: 'new', cursor: hot }), invalid);
    expectValidationError(await getFeed(ctx.app, { cursor: hot }), invalid);
    expectValidationError(await getFeed(ctx.app, { order: 'hot', cursor: fresh }), invalid);
    // A cursor array (cursor[]=…) is the wrong shape, not a 500.
    const array = await ctx.app.inject({ method: 'GET', url: `/v1/post/raw/feed?cursor[]=${fresh}` });
    expectValidationError(array, { cursor: ['The cursor must be a string.'] });
    // And the genuine ones still work.
    expectOk(await getFeed(ctx.app, { order: 'hot', cursor: hot }));
    expectOk(await getFeed(ctx.app, { cursor: fresh }));
  });
});
