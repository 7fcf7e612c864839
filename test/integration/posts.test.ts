import path from 'node:path';
import { sql } from 'kysely';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, registerUser } from '../helpers/factories.js';
import {
  expectError,
  expectOk,
  expectValidationError,
  type FilePart,
  postForm,
  postMultipart,
  UNAUTHENTICATED,
} from '../helpers/http.js';
import { gifFixture, jpegFixture, phpScript, pngFixture } from '../helpers/images.js';
import { failCommitOf, filesUnder, pictureUrls } from '../helpers/media.js';
import { createdPost, createPost, type Post, postAction } from '../helpers/posts.js';

const POST_IMAGE_URL = /^\/media\/post-images\/[A-Za-z0-9_-]{22}(_256|_64)?\.(jpg|png|gif)$/;
const NOT_FOUND = [404, 'NotFoundHttpException', 'Not Found', []] as const;
const FORBIDDEN = [403, 'AccessDeniedHttpException', 'This action is unauthorized.', []] as const;
const COMMIT_FAILED = [500, 'InternalServerError', 'Failed to commit transaction.', []] as const;

async function jpegPart(width = 64, height = 48): Promise<FilePart> {
  return { filename: 'photo.jpg', contentType: 'image/jpeg', data: await jpegFixture(width, height) };
}

describe.each(backends)('%s: post/create', (backend) => {
  const ctx = useTestApp(backend);
  const mediaDir = () => path.join(ctx.dataDir, 'media');
  const postFiles = async () =>
    (await filesUnder(mediaDir())).filter((name) => name.startsWith('post-images'));

  it('publishes a text post with the author, no images and no likes', async () => {
    const me = await registerUser(ctx.app);
    const post = expectOk<{ post: Post }>(await createPost(ctx.app, me.token, '  첫 글입니다  ')).post;
    expect(post).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/),
      text: '첫 글입니다',
      images: [],
      author: {
        id: me.id,
        username: me.username,
        slug: me.slug,
        gender: 0,
        bio: null,
        profile_picture: null,
        is_inspirer: false,
        created_at: me.user.created_at,
        updated_at: me.user.updated_at,
      },
      like_count: 0,
      liked_by_me: false,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(post.created_at).toBe(post.updated_at);
    const single = expectOk<{ post: Post }>(
      await ctx.app.inject({ method: 'GET', url: `/v1/post/single/${post.id}/raw` }),
    );
    expect(single.post).toEqual(post);
  });

  it.each([0, 1, 2, 3, 4])('publishes a post with %i images, each stored in three sizes', async (count) => {
    const me = await registerUser(ctx.app);
    const before = await postFiles();
    const parts = await Promise.all(Array.from({ length: count }, (_, i) => jpegPart(40 + i * 10, 30)));
    const post = expectOk<{ post: Post }>(await createPost(ctx.app, me.token, 'pictures', parts)).post;
    expect(post.images).toHaveLength(count);
    post.images.forEach((image, i) => {
      expect(image).toEqual({
        url: expect.stringMatching(POST_IMAGE_URL),
        width: 40 + i * 10,
        height: 30,
        thumbnails: {
          '256': expect.stringMatching(POST_IMAGE_URL),
          '64': expect.stringMatching(POST_IMAGE_URL),
        },
      });
    });
    expect((await postFiles()).length - before.length).toBe(count * 3);
    for (const url of post.images.flatMap(pictureUrls)) {
      const res = await ctx.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
    }
  });

  it('keeps each image in its own format, in the order sent (images[0], images[1] names too)', async () => {
    const me = await registerUser(ctx.app);
    const res = await postMultipart(
      ctx.app,
      '/v1/post/create',
      { text: 'formats' },
      {
        'images[0]': { filename: 'a.png', contentType: 'image/png', data: await pngFixture(30, 20) },
        'images[1]': { filename: 'b.gif', contentType: 'image/gif', data: await gifFixture(12, 9) },
      },
      bearer(me.token),
    );
    const { post } = expectOk<{ post: Post }>(res);
    expect(post.images.map((image) => [image.width, image.height])).toEqual([
      [30, 20],
      [12, 9],
    ]);
    const formats = await Promise.all(
      post.images.map(
        async (image) => (await sharp((await ctx.app.inject(image.url)).rawPayload).metadata()).format,
      ),
    );
    expect(formats).toEqual(['png', 'gif']);
  });

  it('refuses a fifth image with a 422 on images, storing nothing', async () => {
    const me = await registerUser(ctx.app);
    const before = await postFiles();
    const parts = await Promise.all(Array.from({ length: 5 }, () => jpegPart()));
    expectValidationError(await createPost(ctx.app, me.token, 'too many', parts), {
      images: ['The images may not have more than 4 items.'],
    });
    expect(await postFiles()).toEqual(before);
  });

  it('refuses a sixth file before reading it (413), and anything but files under images (422)', async () => {
    const me = await registerUser(ctx.app);
    const parts = await Promise.all(Array.from({ length: 6 }, () => jpegPart()));
    expectError(
      await createPost(ctx.app, me.token, 'far too many', parts),
      413,
      'PayloadTooLargeHttpException',
      'Payload Too Large',
    );
    expectValidationError(
      await postForm(ctx.app, '/v1/post/create', { text: 'x', images: ['a', 'b'] }, bearer(me.token)),
      {
        images: ['The images must be an array.'],
      },
    );
  });

  it('reads one file sent as plain `images` as a list of one', async () => {
    const me = await registerUser(ctx.app);
    const res = await postMultipart(
      ctx.app,
      '/v1/post/create',
      { text: 'one' },
      { images: await jpegPart(20, 10) },
      bearer(me.token),
    );
    expect(expectOk<{ post: Post }>(res).post.images.map((image) => image.width)).toEqual([20]);
  });

  it('refuses a file that is not an image, judged by its bytes, and stores none of the others', async () => {
    const me = await registerUser(ctx.app);
    const before = await postFiles();
    const script = { filename: 'cat.jpg', contentType: 'image/jpeg', data: phpScript() };
    expectValidationError(await createPost(ctx.app, me.token, 'sneaky', [await jpegPart(), script]), {
      images: ['The images must be an image.'],
    });
    expect(await postFiles()).toEqual(before);
  });

  it('counts the text in code points: 5,000 Korean syllables pass, 5,001 do not', async () => {
    const me = await registerUser(ctx.app);
    const ok = expectOk<{ post: Post }>(await createPost(ctx.app, me.token, '가'.repeat(5000))).post;
    expect([...ok.text]).toHaveLength(5000);
    expectValidationError(await createPost(ctx.app, me.token, '가'.repeat(5001)), {
      text: ['The text may not be greater than 5000 characters.'],
    });
    // Astral characters are one each too (two UTF-16 units).
    expectOk(await createPost(ctx.app, me.token, '😀'.repeat(5000)));
  });

  it('requires the text, refuses NUL and answers in Korean when asked', async () => {
    const me = await registerUser(ctx.app);
    expectValidationError(await createPost(ctx.app, me.token, undefined), {
      text: ['The text field is required.'],
    });
    expectValidationError(await createPost(ctx.app, me.token, 'a\u0000b'), {
      text: ['The text format is invalid.'],
    });
    const res = await postForm(
      ctx.app,
      '/v1/post/create',
      {},
      { ...bearer(me.token), 'accept-language': 'ko' },
    );
    expectValidationError(res, { text: ['내용 필드는 필수입니다.'] });
  });

  it('needs a token', async () => {
    expectError(await createPost(ctx.app, undefined, 'anonymous'), 401, ...UNAUTHENTICATED);
  });

  it('removes every stored image when the transaction fails at commit', async () => {
    const me = await registerUser(ctx.app);
    await failCommitOf(ctx.database.handle.db, {
      table: 'posts',
      event: 'INSERT',
      column: 'text',
      prefix: 'DOOMED',
    });
    const before = await postFiles();
    const parts = [await jpegPart(), await jpegPart(50, 50), await jpegPart(60, 40)];
    expectError(await createPost(ctx.app, me.token, 'DOOMED post', parts), ...COMMIT_FAILED);
    expect(await postFiles()).toEqual(before);
    const { rows } = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM posts WHERE text LIKE 'DOOMED%'`.execute(ctx.database.handle.db);
    expect(rows[0]?.n).toBe(0);
  });
});

describe.each(backends)('%s: post/single and post/{id}/delete', (backend) => {
  const ctx = useTestApp(backend);
  const mediaDir = () => path.join(ctx.dataDir, 'media');
  const single = (id: string, token?: string) =>
    ctx.app.inject({ method: 'GET', url: `/v1/post/single/${id}/raw`, headers: token ? bearer(token) : {} });

  it('answers 404 for an unknown or malformed id, on GET and POST', async () => {
    for (const id of ['0190c1f4-0000-7000-8000-000000000000', 'not-a-uuid', '1', "x'or'1'='1"]) {
      expectError(await single(encodeURIComponent(id)), ...NOT_FOUND);
      expectError(await postForm(ctx.app, `/v1/post/single/${encodeURIComponent(id)}/raw`, {}), ...NOT_FOUND);
    }
  });

  it('deletes your own post and its files; then it is a 404 everywhere', async () => {
    const me = await registerUser(ctx.app);
    const post = expectOk<{ post: Post }>(
      await createPost(ctx.app, me.token, 'short-lived', [
        { filename: 'a.jpg', contentType: 'image/jpeg', data: await jpegFixture(40, 40) },
        { filename: 'b.jpg', contentType: 'image/jpeg', data: await jpegFixture(50, 40) },
      ]),
    ).post;
    const files = post.images.flatMap(pictureUrls).map((url) => url.replace(/^\/media\//, ''));
    expect(files).toHaveLength(6);
    const stored = await filesUnder(mediaDir());
    for (const file of files) expect(stored).toContain(file);

    expect(expectOk(await postAction(ctx.app, me.token, post.id, 'delete'))).toEqual({ deleted: true });
    const left = await filesUnder(mediaDir());
    for (const file of files) expect(left).not.toContain(file);
    expectError(await single(post.id, me.token), ...NOT_FOUND);
    expectError(await postAction(ctx.app, me.token, post.id, 'delete'), ...NOT_FOUND);
    expectError(await postAction(ctx.app, me.token, post.id, 'like'), ...NOT_FOUND);
  });

  it("refuses to delete someone else's post with a 403, and keeps it", async () => {
    const owner = await registerUser(ctx.app);
    const other = await registerUser(ctx.app);
    const post = await createdPost(ctx.app, owner.token, 'mine');
    expectError(await postAction(ctx.app, other.token, post.id, 'delete'), ...FORBIDDEN);
    expectOk(await single(post.id));
  });

  it('answers 404 for deleting a missing or malformed id, and 401 without a token', async () => {
    const me = await registerUser(ctx.app);
    expectError(
      await postAction(ctx.app, me.token, '0190c1f4-0000-7000-8000-000000000000', 'delete'),
      ...NOT_FOUND,
    );
    expectError(await postAction(ctx.app, me.token, 'nope', 'delete'), ...NOT_FOUND);
    const post = await createdPost(ctx.app, me.token);
    expectError(await postAction(ctx.app, undefined, post.id, 'delete'), 401, ...UNAUTHENTICATED);
  });

  it('shows liked_by_me to the viewer who liked, false to others and without a token', async () => {
    const me = await registerUser(ctx.app);
    const other = await registerUser(ctx.app);
    const post = await createdPost(ctx.app, me.token);
    expectOk(await postAction(ctx.app, me.token, post.id, 'like'));
    const seen = async (token?: string) => expectOk<{ post: Post }>(await single(post.id, token)).post;
    expect(await seen(me.token)).toMatchObject({ like_count: 1, liked_by_me: true });
    expect(await seen(other.token)).toMatchObject({ like_count: 1, liked_by_me: false });
    expect(await seen()).toMatchObject({ like_count: 1, liked_by_me: false });
  });
});
