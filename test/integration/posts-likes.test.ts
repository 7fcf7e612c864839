import path from 'node:path';
import { type Kysely, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/schema.js';
import { ImagesService } from '../../src/modules/images/service.js';
import { FeedCursorCodec } from '../../src/modules/posts/cursor.js';
import { PostsRepo } from '../../src/modules/posts/repo.js';
import { PostsService } from '../../src/modules/posts/service.js';
import { LocalStorage } from '../../src/storage/local-storage.js';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { registerUser } from '../helpers/factories.js';
import { expectError, expectOk, UNAUTHENTICATED } from '../helpers/http.js';
import { jpegFixture } from '../helpers/images.js';
import { filesUnder, pictureUrls } from '../helpers/media.js';
import { createdPost, createPost, type Post, postAction } from '../helpers/posts.js';

const NOT_FOUND = [404, 'NotFoundHttpException', 'Not Found', []] as const;

/** What the database holds for the post: the stored count, the like rows, and the stored score. */
async function stored(db: Kysely<Database>, id: string) {
  const { rows } = await sql<{ like_count: number; likes: number; hot_score: number }>`
    SELECT like_count, (SELECT count(*)::int FROM post_likes WHERE post_id = p.id) AS likes, hot_score
    FROM posts p WHERE id = ${id}`.execute(db);
  return rows[0];
}

describe.each(backends)('%s: post/{id}/like and /unlike', (backend) => {
  const ctx = useTestApp(backend);
  const db = () => ctx.database.handle.db;

  it('likes and unlikes idempotently, answering the post as the viewer sees it', async () => {
    const author = await registerUser(ctx.app);
    const fan = await registerUser(ctx.app);
    const post = await createdPost(ctx.app, author.token);
    const like = async () =>
      expectOk<{ post: Post }>(await postAction(ctx.app, fan.token, post.id, 'like')).post;
    const unlike = async () =>
      expectOk<{ post: Post }>(await postAction(ctx.app, fan.token, post.id, 'unlike')).post;

    const liked = await like();
    expect(liked).toEqual({ ...post, like_count: 1, liked_by_me: true });
    expect(await like()).toEqual(liked);
    expect(await stored(db(), post.id)).toMatchObject({ like_count: 1, likes: 1 });

    const unliked = await unlike();
    expect(unliked).toEqual({ ...post, like_count: 0, liked_by_me: false });
    expect(await unlike()).toEqual(unliked);
    expect(await stored(db(), post.id)).toMatchObject({ like_count: 0, likes: 0 });
  });

  it('raises the stored hot score with the likes, in the same transaction', async () => {
    const author = await registerUser(ctx.app);
    const post = await createdPost(ctx.app, author.token);
    const before = await stored(db(), post.id);
    const fans = await Promise.all([registerUser(ctx.app), registerUser(ctx.app)]);
    for (const fan of fans) expectOk(await postAction(ctx.app, fan.token, post.id, 'like'));
    const after = await stored(db(), post.id);
    // log10(2) - log10(1): one like is worth nothing (max(likes, 1)), the second doubles the count.
    expect((after?.hot_score ?? 0) - (before?.hot_score ?? 0)).toBeCloseTo(Math.log10(2), 9);
  });

  it('counts 20 concurrent likes of one user once, and 20 concurrent unlikes down to 0', async () => {
    const author = await registerUser(ctx.app);
    const fan = await registerUser(ctx.app);
    const post = await createdPost(ctx.app, author.token);
    const likes = await Promise.all(
      Array.from({ length: 20 }, () => postAction(ctx.app, fan.token, post.id, 'like')),
    );
    for (const res of likes)
      expect(expectOk<{ post: Post }>(res).post).toMatchObject({ like_count: 1, liked_by_me: true });
    expect(await stored(db(), post.id)).toMatchObject({ like_count: 1, likes: 1 });

    const unlikes = await Promise.all(
      Array.from({ length: 20 }, () => postAction(ctx.app, fan.token, post.id, 'unlike')),
    );
    for (const res of unlikes) expect(expectOk<{ post: Post }>(res).post.like_count).toBe(0);
    expect(await stored(db(), post.id)).toMatchObject({ like_count: 0, likes: 0 });
  });

  it('counts 20 concurrent likes of 20 users as 20, and their concurrent unlikes back to 0', async () => {
    const author = await registerUser(ctx.app);
    const fans = await Promise.all(Array.from({ length: 20 }, () => registerUser(ctx.app)));
    const post = await createdPost(ctx.app, author.token);
    const likes = await Promise.all(fans.map((fan) => postAction(ctx.app, fan.token, post.id, 'like')));
    for (const res of likes) expectOk(res);
    expect(await stored(db(), post.id)).toMatchObject({ like_count: 20, likes: 20 });

    // Mixed: half unlike while the other half like again (a no-op); the count follows the rows.
    const mixed = await Promise.all(
      fans.map((fan, i) => postAction(ctx.app, fan.token, post.id, i % 2 === 0 ? 'unlike' : 'like')),
    );
    for (const res of mixed) expectOk(res);
    expect(await stored(db(), post.id)).toMatchObject({ like_count: 10, likes: 10 });
  });

  it('answers 404 for a missing or malformed post, and 401 without a token', async () => {
    const me = await registerUser(ctx.app);
    for (const action of ['like', 'unlike'] as const) {
      expectError(
        await postAction(ctx.app, me.token, '0190c1f4-0000-7000-8000-000000000000', action),
        ...NOT_FOUND,
      );
      expectError(await postAction(ctx.app, me.token, 'zzz', action), ...NOT_FOUND);
    }
    const post = await createdPost(ctx.app, me.token);
    expectError(await postAction(ctx.app, undefined, post.id, 'like'), 401, ...UNAUTHENTICATED);
  });
});

describe.each(backends)('%s: PostsService for the operator and account deletion', (backend) => {
  const ctx = useTestApp(backend);
  const mediaDir = () => path.join(ctx.dataDir, 'media');

  function service(): PostsService {
    const db = ctx.database.handle.db;
    const repo = new PostsRepo(db);
    const images = new ImagesService(
      new LocalStorage(mediaDir(), '/media'),
      ctx.imageRenderer,
      ctx.config.imageMaxPixels,
    );
    return new PostsService({
      db,
      postsRepo: repo,
      images,
      cursors: new FeedCursorCodec(() => repo.secret('feed_cursor')),
    });
  }

  async function postWithImage(token: string): Promise<{ post: Post; files: string[] }> {
    const image = { filename: 'a.jpg', contentType: 'image/jpeg', data: await jpegFixture(40, 30) };
    const post = expectOk<{ post: Post }>(await createPost(ctx.app, token, 'with a picture', [image])).post;
    return { post, files: post.images.flatMap(pictureUrls).map((url) => url.replace(/^\/media\//, '')) };
  }

  it('removeAsOperator removes any post and its files, and says whether there was one', async () => {
    const me = await registerUser(ctx.app);
    const { post, files } = await postWithImage(me.token);
    expect(await service().removeAsOperator(post.id)).toBe(true);
    const left = await filesUnder(mediaDir());
    for (const file of files) expect(left).not.toContain(file);
    expectError(await ctx.app.inject(`/v1/post/single/${post.id}/raw`), ...NOT_FOUND);
    expect(await service().removeAsOperator(post.id)).toBe(false);
    expect(await service().removeAsOperator('not-an-id')).toBe(false);
  });

  it("deleteAllOfUser removes a user's posts in the caller's transaction; files go after commit", async () => {
    const me = await registerUser(ctx.app);
    const other = await registerUser(ctx.app);
    const mine = [await postWithImage(me.token), await postWithImage(me.token)];
    const theirs = await createdPost(ctx.app, other.token);
    const posts = service();
    const images = await ctx.database.handle.db
      .transaction()
      .execute((trx) => posts.deleteAllOfUser(trx, me.id));
    expect(images).toHaveLength(2);
    // Not yet removed: the caller removes them once its transaction has committed.
    const before = await filesUnder(mediaDir());
    for (const file of mine.flatMap((post) => post.files)) expect(before).toContain(file);
    await posts.removeImageFiles(images);
    const after = await filesUnder(mediaDir());
    for (const file of mine.flatMap((post) => post.files)) expect(after).not.toContain(file);
    for (const { post } of mine)
      expectError(await ctx.app.inject(`/v1/post/single/${post.id}/raw`), ...NOT_FOUND);
    expectOk(await ctx.app.inject(`/v1/post/single/${theirs.id}/raw`));
  });
});
