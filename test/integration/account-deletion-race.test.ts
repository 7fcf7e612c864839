import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { registerUser } from '../helpers/factories.js';
import { expectOk, postForm } from '../helpers/http.js';
import { createdPost, postAction } from '../helpers/posts.js';

/**
 * Account deletion against likes in flight (real only on PostgreSQL; PGlite runs one transaction at a time):
 * whatever interleaving happens, every post's like_count ends equal to its likes, no request is a 500, and
 * nothing of the deleted user stays.
 */
describe.each(backends)('%s: user/delete racing likes', (backend) => {
  // Without a grace period: the deletion is immediate.
  const ctx = useTestApp(backend, { DELETION_GRACE_DAYS: '0' });

  it('keeps every like_count equal to the likes while the user likes, unlikes and others like at once', async () => {
    const author = await registerUser(ctx.app);
    const posts = await Promise.all(
      Array.from({ length: 6 }, (_, i) => createdPost(ctx.app, author.token, `race ${i}`)),
    );
    const leaving = await registerUser(ctx.app);
    const others = await Promise.all(Array.from({ length: 4 }, () => registerUser(ctx.app)));
    const [a, b, c, d, e, f] = posts.map((post) => post.id) as [
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    // The leaving user already likes a, b, c; the others like b.
    for (const id of [a, b, c]) expectOk(await postAction(ctx.app, leaving.token, id, 'like'));
    for (const other of others) expectOk(await postAction(ctx.app, other.token, b, 'like'));

    const responses = await Promise.all([
      postForm(
        ctx.app,
        '/v1/user/delete',
        { current_password: leaving.password },
        {
          authorization: `Bearer ${leaving.token}`,
        },
      ),
      // The leaving user, still signed in, likes and unlikes meanwhile.
      postAction(ctx.app, leaving.token, a, 'unlike'),
      postAction(ctx.app, leaving.token, d, 'like'),
      postAction(ctx.app, leaving.token, e, 'like'),
      // Others like and unlike the same posts.
      ...others.flatMap((other) => [
        postAction(ctx.app, other.token, a, 'like'),
        postAction(ctx.app, other.token, c, 'like'),
        postAction(ctx.app, other.token, b, 'unlike'),
        postAction(ctx.app, other.token, f, 'like'),
      ]),
    ]);
    expect(responses[0]?.statusCode, responses[0]?.body).toBe(200);
    // Each request either went through before or after the deletion, or met it: never a fault.
    for (const res of responses) expect([200, 401, 404], res.body).toContain(res.statusCode);

    const db = ctx.database.handle.db;
    const { rows } = await sql<{ id: string; like_count: number; likes: number }>`
      SELECT p.id, p.like_count, (SELECT count(*)::int FROM post_likes l WHERE l.post_id = p.id) AS likes
      FROM posts p WHERE p.user_id = ${author.id}::uuid`.execute(db);
    expect(rows).toHaveLength(6);
    for (const row of rows) expect(row.like_count, row.id).toBe(row.likes);
    const left = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM post_likes WHERE user_id = ${leaving.id}::uuid`.execute(db);
    expect(left.rows[0]?.n).toBe(0);
    const byOthers = rows.find((row) => row.id === a)?.likes;
    expect(byOthers).toBe(others.length);
  });
});
