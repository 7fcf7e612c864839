import path from 'node:path';
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/schema.js';
import { type FakeProvider, startFakeProvider } from '../../src/dev/fake-provider.js';
import { newId } from '../../src/lib/ids.js';
import { rowsOf, USER_TABLES } from '../helpers/account-rows.js';
import { closeTestApp, createTestApp, type TestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, type RegisteredUser, registerUser, unique } from '../helpers/factories.js';
import { expectError, expectOk, expectValidationError, postForm, UNAUTHENTICATED } from '../helpers/http.js';
import { jpegFixture, pngFixture } from '../helpers/images.js';
import { failCommitOf, filesUnder, type Picture, pictureUrls, updatePicture } from '../helpers/media.js';
import { createPost, type Post, postAction } from '../helpers/posts.js';
import { providerSignUp } from '../helpers/providers.js';

const COMMIT_FAILED = [500, 'InternalServerError', 'Failed to commit transaction.', []] as const;

async function likeCount(db: Kysely<Database>, postId: string): Promise<number | undefined> {
  const row = await db.selectFrom('posts').select('like_count').where('id', '=', postId).executeTakeFirst();
  return row?.like_count;
}

/** Every outbox row to the address, whatever its status or the address's case. */
async function mailsTo(
  db: Kysely<Database>,
  address: string,
): Promise<{ status: string; text: string | null }[]> {
  const { rows } = await sql<{ status: string; text: string | null }>`
    SELECT status, text FROM mail_outbox WHERE lower(to_address) = lower(${address}) ORDER BY created_at`.execute(
    db,
  );
  return rows;
}

/** A mail still waiting to go (due tomorrow, so the background sender leaves it alone). */
async function queueMail(db: Kysely<Database>, address: string): Promise<void> {
  await sql`
    INSERT INTO mail_outbox (id, to_address, kind, locale, subject, text, html, next_attempt_at)
    VALUES (${newId()}, ${address}, 'email_verify', 'en', 'Verify', 'link', '<p>link</p>', now() + interval '1 day')`.execute(
    db,
  );
}

describe.each(backends)('%s: user/delete', (backend) => {
  let fake: FakeProvider;
  let ctx: TestApp;

  beforeAll(async () => {
    fake = await startFakeProvider({ clientId: 'accounts-test' });
    // Without a grace period: the deletion is immediate (account-deletion-grace.test.ts has the period).
    ctx = await createTestApp(backend, { ...fake.env('alpha', 'userinfo'), DELETION_GRACE_DAYS: '0' });
  });
  afterAll(async () => {
    if (ctx) await closeTestApp(ctx);
    if (fake) await fake.close();
  });

  const db = () => ctx.database.handle.db;
  const mediaFiles = () => filesUnder(path.join(ctx.dataDir, 'media'));
  const deleteAccount = (token: string, body: Record<string, string>, headers = {}) =>
    postForm(ctx.app, '/v1/user/delete', body, { ...bearer(token), ...headers });
  const me = (token: string) =>
    ctx.app.inject({ method: 'GET', url: '/v1/user/get', headers: bearer(token) });

  /** A user with a picture, a device with a push token, a pushed notification, a post with an image, likes. */
  async function fullAccount(user: RegisteredUser, likedPostId: string) {
    const picture = expectOk<{ user: { profile_picture: Picture } }>(
      await updatePicture(ctx.app, user.token, await pngFixture(40, 30)),
    ).user.profile_picture;
    expectOk(
      await postForm(
        ctx.app,
        '/v1/user/device/update',
        { device_id: `dev-${unique()}`, platform: 'ios', push_token: `push-${unique()}` },
        bearer(user.token),
      ),
    );
    expectOk(await postForm(ctx.app, '/v1/test/notification', {}, bearer(user.token)));
    const post = expectOk<{ post: Post }>(
      await createPost(ctx.app, user.token, 'mine', [
        { filename: 'a.jpg', contentType: 'image/jpeg', data: await jpegFixture(40, 40) },
      ]),
    ).post;
    expectOk(await postAction(ctx.app, user.token, post.id, 'like'));
    expectOk(await postAction(ctx.app, user.token, likedPostId, 'like'));
    const files = [...pictureUrls(picture), ...post.images.flatMap(pictureUrls)].map((url) =>
      url.replace(/^\/media\//, ''),
    );
    return { post, files };
  }

  it('deletes the user and everything of it, files after; the names are free again at once', async () => {
    const other = await registerUser(ctx.app);
    const othersPost = expectOk<{ post: Post }>(await createPost(ctx.app, other.token, 'theirs')).post;
    expectOk(await postAction(ctx.app, other.token, othersPost.id, 'like'));
    const user = await registerUser(ctx.app);
    const { post, files } = await fullAccount(user, othersPost.id);
    // The other user liked the doomed post too: that like goes with the post.
    expectOk(await postAction(ctx.app, other.token, post.id, 'like'));
    await queueMail(db(), user.email);
    // The sign-up's verification mail went out (log transport: the row keeps its body, name and link included).
    expect(await mailsTo(db(), user.email)).toEqual([
      { status: 'sent', text: expect.stringContaining('verify-email?token=') },
      { status: 'pending', text: 'link' },
    ]);
    const masked = `${user.email.slice(0, 1)}***${user.email.slice(user.email.lastIndexOf('@'))}`;
    const maskedBefore = await mailsTo(db(), masked);
    expect(await likeCount(db(), othersPost.id)).toBe(2);

    const before = await rowsOf(db(), user.id);
    expect(before).toEqual({
      users: 1,
      api_tokens: 1,
      devices: 1,
      provider_accounts: 0,
      posts: 1,
      post_likes: 2,
      one_time_tokens: 1,
      notification_outbox: 1,
      guardian_requests: 0,
      guardian_consents: 0,
    });
    const stored = await mediaFiles();
    expect(files).toHaveLength(6);
    for (const file of files) expect(stored).toContain(file);
    const othersBefore = await rowsOf(db(), other.id);

    expect(expectOk(await deleteAccount(user.token, { current_password: user.password }))).toEqual({
      deleted: true,
    });

    expect(Object.values(await rowsOf(db(), user.id))).toEqual(USER_TABLES.map(() => 0));
    // The pending mail is dropped; the sent one stays as the delivery record, without address or body.
    expect(await mailsTo(db(), user.email)).toEqual([]);
    expect(await mailsTo(db(), masked)).toEqual([...maskedBefore, { status: 'sent', text: null }]);
    expect(await mailsTo(db(), other.email)).toEqual([expect.objectContaining({ status: 'sent' })]);
    const left = await mediaFiles();
    for (const file of files) expect(left).not.toContain(file);
    expect(await likeCount(db(), post.id)).toBeUndefined();
    // The other user's post lost exactly the deleted user's like; their own like and rows are untouched
    // (but the like they gave the deleted post, which went with it).
    expect(await likeCount(db(), othersPost.id)).toBe(1);
    expect(await rowsOf(db(), other.id)).toEqual({
      ...othersBefore,
      post_likes: (othersBefore.post_likes ?? 0) - 1,
    });
    const seen = expectOk<{ post: Post }>(
      await ctx.app.inject({
        method: 'GET',
        url: `/v1/post/single/${othersPost.id}/raw`,
        headers: bearer(other.token),
      }),
    ).post;
    expect(seen).toMatchObject({ like_count: 1, liked_by_me: true });

    // The old session is gone with the account.
    expectError(await me(user.token), 401, ...UNAUTHENTICATED);
    // The same email, username and slug register again at once.
    const again = await registerUser(ctx.app, {
      email: user.email,
      username: user.username,
      slug: user.slug,
      password: `Fresh-Start-${unique()}`,
    });
    expect(again.user).toMatchObject({ email: user.email, username: user.username, slug: user.slug });
    expect(again.id).not.toBe(user.id);
  });

  it('keeps the hot score in step with the like count it takes back', async () => {
    const other = await registerUser(ctx.app);
    const othersPost = expectOk<{ post: Post }>(await createPost(ctx.app, other.token, 'hot')).post;
    const fans = [await registerUser(ctx.app), await registerUser(ctx.app)];
    for (const fan of fans) expectOk(await postAction(ctx.app, fan.token, othersPost.id, 'like'));
    const [leaving] = fans;
    if (!leaving) throw new Error('no fan');
    expectOk(await deleteAccount(leaving.token, { current_password: leaving.password }));
    const { rows } = await sql<{ like_count: number; hot_score: number; expected: number }>`
      SELECT like_count, hot_score, post_hot_score(1, created_at) AS expected FROM posts WHERE id = ${othersPost.id}::uuid`.execute(
      db(),
    );
    expect(rows[0]?.like_count).toBe(1);
    expect(rows[0]?.hot_score).toBe(rows[0]?.expected);
  });

  it('refuses a missing or wrong current_password with a 422 and deletes nothing', async () => {
    const user = await registerUser(ctx.app);
    const before = await rowsOf(db(), user.id);
    expectValidationError(await deleteAccount(user.token, {}), {
      current_password: ['The current password field is required.'],
    });
    expectValidationError(await deleteAccount(user.token, { current_password: `${user.password}x` }), {
      current_password: ['The current password is incorrect.'],
    });
    expect(await rowsOf(db(), user.id)).toEqual(before);
    expectOk(await me(user.token));
  });

  it('answers in Korean when asked', async () => {
    const user = await registerUser(ctx.app);
    expectValidationError(
      await deleteAccount(
        user.token,
        { current_password: 'Not-The-Password-1' },
        { 'accept-language': 'ko' },
      ),
      { current_password: ['현재 비밀번호가 올바르지 않습니다.'] },
    );
    expectOk(await me(user.token));
  });

  it('deletes a provider-only account with a fresh credential of its linked provider', async () => {
    const alphaId = `a-${unique()}`;
    const fields = providerSignUp('alpha', alphaId, fake.issueAccessToken(alphaId));
    const signedIn = expectOk<{ user: { id: string; api_token: string } }>(
      await postForm(ctx.app, '/v1/auth/register', fields),
    ).user;
    expect((await rowsOf(db(), signedIn.id)).provider_accounts).toBe(1);
    expectValidationError(await deleteAccount(signedIn.api_token, {}), {
      alpha_user_id: ['The alpha user id field is required.'],
      alpha_access_token: ['The alpha access token field is required.'],
    });
    // A genuine token of another identity proves nothing.
    const strangerId = `a-${unique()}`;
    expectValidationError(
      await deleteAccount(signedIn.api_token, {
        alpha_user_id: strangerId,
        alpha_access_token: fake.issueAccessToken(strangerId),
      }),
      { alpha_access_token: ['The alpha access token is incorrect.'] },
    );
    expect((await rowsOf(db(), signedIn.id)).users).toBe(1);

    expectOk(
      await deleteAccount(signedIn.api_token, {
        alpha_user_id: alphaId,
        alpha_access_token: fake.issueAccessToken(alphaId),
      }),
    );
    expect(Object.values(await rowsOf(db(), signedIn.id))).toEqual(USER_TABLES.map(() => 0));
    // The identity is free: signing up with it again works.
    expectOk(
      await postForm(ctx.app, '/v1/auth/register', {
        ...fields,
        alpha_access_token: fake.issueAccessToken(alphaId),
      }),
    );
  });

  it('deletes nothing, files included, when the transaction fails at commit', async () => {
    const prefix = `doomed${unique()}`;
    const other = await registerUser(ctx.app);
    const othersPost = expectOk<{ post: Post }>(await createPost(ctx.app, other.token, 'stays')).post;
    const user = await registerUser(ctx.app, { username: `${prefix}u` });
    const { files } = await fullAccount(user, othersPost.id);
    const before = await rowsOf(db(), user.id);
    const restore = await failCommitOf(db(), { table: 'users', event: 'DELETE', column: 'username', prefix });
    try {
      expectError(await deleteAccount(user.token, { current_password: user.password }), ...COMMIT_FAILED);
    } finally {
      await restore();
    }
    expect(await rowsOf(db(), user.id)).toEqual(before);
    expect(await likeCount(db(), othersPost.id)).toBe(1);
    const stored = await mediaFiles();
    for (const file of files) expect(stored).toContain(file);
    expectOk(await me(user.token));
  });
});
