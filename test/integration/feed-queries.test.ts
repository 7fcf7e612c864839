import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { backends, type TestDatabase } from '../helpers/database.js';
import { type RegisteredUser, registerUser } from '../helpers/factories.js';
import { expectOk } from '../helpers/http.js';
import { feedPage, getFeed, seedPosts } from '../helpers/posts.js';
import { useRecordedApp } from '../helpers/query-recorder.js';

const POSTS = 5000;

describe.each(backends)('%s: one query per feed page, on an index', (backend) => {
  const ctx = useRecordedApp(backend);
  const recorder = ctx.recorder;
  let database: TestDatabase;
  let app: FastifyInstance;
  let viewer: RegisteredUser;

  beforeAll(async () => {
    ({ database, app } = ctx);
    const authors = await Promise.all(Array.from({ length: 5 }, () => registerUser(app)));
    viewer = authors[0] as RegisteredUser;
    const now = Date.now();
    await seedPosts(
      database.handle.db,
      Array.from({ length: POSTS }, (_, i) => ({
        userId: (authors[i % authors.length] as RegisteredUser).id,
        createdAt: new Date(now - i * 60_000),
        likes: (i * 7919) % 300,
      })),
    );
    // Likes to look through for liked_by_me: every author likes every third post.
    await sql`INSERT INTO post_likes (post_id, user_id)
              SELECT p.id, u.id FROM posts p CROSS JOIN users u
              WHERE p.like_count % 3 = 0`.execute(database.handle.db);
    // One author's deletion is scheduled: their posts are hidden, and the feed indexes (partial on visible
    // posts) leave them out, so the plans below also show a hidden flag costs the walk nothing.
    await sql`UPDATE posts SET author_hidden = true WHERE user_id = ${(authors[4] as RegisteredUser).id}::uuid`.execute(
      database.handle.db,
    );
    // The planner should see the tables as autovacuum would have left them.
    await sql`ANALYZE`.execute(database.handle.db);
    // The cursor key is read once per process, on first use: not part of any page after that.
    await feedPage(app, { limit: 2 });
  });

  /** How many statements one request sent. */
  async function queriesOf(request: () => Promise<unknown>): Promise<number> {
    recorder.reset();
    await request();
    return recorder.count;
  }

  it.each(['new', 'hot'] as const)(
    '%s: a page is one statement, whatever its size, authors and likes included',
    async (order) => {
      const first = await feedPage(app, { order, limit: 100 });
      for (const limit of [1, 100]) {
        expect(await queriesOf(() => feedPage(app, { order, limit }))).toBe(1);
        expect(
          await queriesOf(() => feedPage(app, { order, limit, cursor: first.next_cursor as string })),
        ).toBe(1);
      }
      // Signed in, the token check comes on top; the page is still one statement on posts, for any size.
      const withToken = async (limit: number) => {
        const total = await queriesOf(() => feedPage(app, { order, limit }, viewer.token));
        const onPosts = recorder.statements.filter((statement) =>
          /from "(posts|post_likes)"/.test(statement.sql),
        );
        expect(onPosts).toHaveLength(1);
        return total;
      };
      // The first use of a token may also note its last use (at most once a minute): not part of a page.
      await withToken(1);
      expect(await withToken(100)).toBe(await withToken(1));
    },
  );

  it.each([
    ['new', 'posts_new_idx'],
    ['hot', 'posts_hot_idx'],
  ] as const)('%s: the page query descends %s, no scan or sort of posts', async (order, index) => {
    const first = await feedPage(app, { order, limit: 20 });
    // The file's posts fill more than a page, so the first page has a cursor to go on from.
    expect(first.next_cursor).toEqual(expect.any(String));
    for (const cursor of [undefined, first.next_cursor as string]) {
      recorder.reset();
      expectOk(await getFeed(app, { order, limit: 20, cursor }, viewer.token));
      const page = recorder.statements.find((statement) => statement.sql.includes('from "posts"'));
      expect(page, 'the page statement').toBeDefined();
      const plan = await database.handle.withSession(async (session) =>
        (await session.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${page?.sql}`, [...(page?.parameters ?? [])]))
          .map((row) => row['QUERY PLAN'])
          .join('\n'),
      );
      expect(plan).toContain(`Index Scan using ${index} on posts`);
      expect(plan).not.toMatch(/Seq Scan on (posts|post_likes)|Bitmap Heap Scan on posts|Sort/);
      // liked_by_me: one probe per row of an index on (post_id, user_id) or (user_id, post_id).
      expect(plan).toMatch(
        /Index (Only )?Scan using post_likes_(pkey|user_id_idx) on post_likes l[^\n]*\n\s+Index Cond: [^\n]*(post_id = p\.id[^\n]*user_id = '|user_id = '[^\n]*post_id = p\.id)/,
      );
      // From a cursor the index is entered at it; the first page starts at the index's end.
      expect(/Index Cond: \(ROW\((created_at|hot_score), id\) < ROW\(/.test(plan), plan).toBe(
        cursor !== undefined,
      );
    }
  });
});
