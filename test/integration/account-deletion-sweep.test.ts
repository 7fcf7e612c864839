import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { rowsOf, USER_TABLES } from '../helpers/account-rows.js';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, type RegisteredUser, registerUser, unique } from '../helpers/factories.js';
import { expectOk, expectValidationError, postForm } from '../helpers/http.js';
import { latestToken } from '../helpers/mail.js';
import { createdPost, postAction } from '../helpers/posts.js';

const NOTHING_LEFT = USER_TABLES.map(() => 0);

/**
 * The end of the grace period: the server's sweep erases the account as the immediate deletion does, and a
 * cancel racing it (real only on PostgreSQL; PGlite runs one transaction at a time) either wins wholly or
 * loses wholly.
 */
describe.each(backends)('%s: the scheduled deletions sweep', (backend) => {
  const ctx = useTestApp(backend);
  const db = () => ctx.database.handle.db;

  async function schedule(user: RegisteredUser): Promise<string> {
    expectOk(
      await postForm(ctx.app, '/v1/user/delete', { current_password: user.password }, bearer(user.token)),
    );
    return latestToken(ctx.database.handle, user.email, 'deletion_scheduled');
  }
  /** The grace period is over: as if it had been asked for 14 days and a second ago. */
  async function makeDue(userId: string): Promise<void> {
    await sql`
      UPDATE users SET deletion_scheduled_at = now() - interval '14 days 1 second',
                       deletion_due_at = now() - interval '1 second'
      WHERE id = ${userId}::uuid`.execute(db());
  }
  async function likeCount(postId: string): Promise<number | undefined> {
    const row = await db()
      .selectFrom('posts')
      .select('like_count')
      .where('id', '=', postId)
      .executeTakeFirst();
    return row?.like_count;
  }

  it('erases a due account and everything of it, and nothing not due; the names are free again', async () => {
    const other = await registerUser(ctx.app);
    const theirs = await createdPost(ctx.app, other.token, 'stays');
    const leaving = await registerUser(ctx.app);
    const staying = await registerUser(ctx.app);
    expectOk(
      await postForm(
        ctx.app,
        '/v1/user/device/update',
        { device_id: `dev-${unique()}`, platform: 'ios', push_token: `push-${unique()}` },
        bearer(leaving.token),
      ),
    );
    const mine = await createdPost(ctx.app, leaving.token, 'goes');
    expectOk(await postAction(ctx.app, other.token, mine.id, 'like'));
    expectOk(await postAction(ctx.app, leaving.token, theirs.id, 'like'));
    const token = await schedule(leaving);
    await schedule(staying);
    await makeDue(leaving.id);

    await ctx.dueDeletions.eraseDue();

    expect(Object.values(await rowsOf(db(), leaving.id))).toEqual(NOTHING_LEFT);
    expect(await likeCount(mine.id)).toBeUndefined();
    expect(await likeCount(theirs.id)).toBe(0);
    expectValidationError(await postForm(ctx.app, '/v1/auth/deletion/cancel', { token }), {
      token: ['The selected token is invalid.'],
    });
    // Not due yet: untouched.
    expect((await rowsOf(db(), staying.id)).users).toBe(1);
    const again = await registerUser(ctx.app, {
      email: leaving.email,
      username: leaving.username,
      slug: leaving.slug,
    });
    expect(again.id).not.toBe(leaving.id);
  });

  it('erases each due account once when sweeps run side by side', async () => {
    const users = await Promise.all(Array.from({ length: 4 }, () => registerUser(ctx.app)));
    for (const user of users) {
      await schedule(user);
      await makeDue(user.id);
    }
    const passes = await Promise.all([1, 2, 3].map(() => ctx.dueDeletions.eraseDue()));
    const erased = passes.flat().map((account) => account.id);
    // The periodic pass may have taken some already; none is erased twice, and none is left.
    expect(new Set(erased).size).toBe(erased.length);
    for (const user of users) expect(Object.values(await rowsOf(db(), user.id))).toEqual(NOTHING_LEFT);
  });

  it('lets a cancel racing the sweep either restore the account wholly or lose to the erasure wholly', async () => {
    const other = await registerUser(ctx.app);
    const users = await Promise.all(Array.from({ length: 6 }, () => registerUser(ctx.app)));
    const posts = new Map<string, string>();
    const tokens = new Map<string, string>();
    for (const user of users) {
      const post = await createdPost(ctx.app, user.token, 'race');
      expectOk(await postAction(ctx.app, other.token, post.id, 'like'));
      posts.set(user.id, post.id);
      tokens.set(user.id, await schedule(user));
      await makeDue(user.id);
    }
    const cancels = users.map((user) =>
      postForm(ctx.app, '/v1/auth/deletion/cancel', { token: tokens.get(user.id) as string }),
    );
    const [responses] = await Promise.all([Promise.all(cancels), ctx.dueDeletions.eraseDue()]);

    for (const res of responses) expect([200, 422]).toContain(res.statusCode);
    for (const [index, user] of users.entries()) {
      const rows = await rowsOf(db(), user.id);
      const postId = posts.get(user.id) as string;
      if (responses[index]?.statusCode === 200) {
        // Restored: the account, its post (visible, with its like) and one new token; nothing scheduled.
        expect(rows).toMatchObject({ users: 1, posts: 1, api_tokens: 1 });
        const row = await db()
          .selectFrom('users')
          .selectAll()
          .where('id', '=', user.id)
          .executeTakeFirstOrThrow();
        expect(row.deletion_due_at).toBeNull();
        const post = await db()
          .selectFrom('posts')
          .selectAll()
          .where('id', '=', postId)
          .executeTakeFirstOrThrow();
        expect(post).toMatchObject({ author_hidden: false, like_count: 1 });
      } else {
        expect(Object.values(rows)).toEqual(NOTHING_LEFT);
        expect(await likeCount(postId)).toBeUndefined();
      }
    }
  });
});
