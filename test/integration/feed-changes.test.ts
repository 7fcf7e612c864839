import { beforeAll, describe, expect, it } from 'vitest';
import { overtakeSeconds } from '../../src/modules/posts/hot-score.js';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { type RegisteredUser, registerUser } from '../helpers/factories.js';
import { expectOk } from '../helpers/http.js';
import { allPostIds, createdPost, postAction, seedPosts, walkFeed } from '../helpers/posts.js';

const DAY = 86_400_000;

describe.each(backends)('%s: the feed while posts and likes change', (backend) => {
  const ctx = useTestApp(backend);
  const db = () => ctx.database.handle.db;
  let author: RegisteredUser;
  let fans: RegisteredUser[];

  beforeAll(async () => {
    author = await registerUser(ctx.app);
    fans = await Promise.all(Array.from({ length: 4 }, () => registerUser(ctx.app)));
    const now = Date.now();
    await seedPosts(
      db(),
      Array.from({ length: 80 }, (_, i) => ({
        userId: author.id,
        createdAt: new Date(now - DAY - i * 1_234_567),
        likes: 0,
      })),
    );
  });

  const like = async (fan: RegisteredUser, id: string, action: 'like' | 'unlike' = 'like') =>
    expectOk(await postAction(ctx.app, fan.token, id, action));

  it('new: posts published and liked between pages neither repeat nor skip what was there', async () => {
    const before = await allPostIds(db(), 'new');
    const seen: string[] = [];
    const walked = await walkFeed(ctx.app, { order: 'new', limit: 9 }, async (page) => {
      const post = await createdPost(ctx.app, author.token, `published during page ${page}`);
      seen.push(post.id);
      const fan = fans[page % fans.length] as RegisteredUser;
      await like(fan, before[page * 3] as string);
      await like(fan, before[Math.min(before.length - 1, page * 9 + 4)] as string);
    });
    expect(walked).toEqual(before);
    for (const id of seen) expect(walked).not.toContain(id);
  });

  it('hot: likes on posts already seen, unlikes on posts ahead and new posts keep the walk exact', async () => {
    // Posts ahead of the reader with likes to lose: each liked by every fan first.
    const start = await allPostIds(db(), 'hot');
    const ahead = start.slice(40, 60);
    for (const id of ahead) for (const fan of fans) await like(fan, id);
    // Recent posts with many likes: they stay above a post published now, so new posts land *below* the
    // first pages' cursors, where only the walk's bound keeps them out.
    await seedPosts(
      db(),
      Array.from({ length: 12 }, (_, i) => ({
        userId: author.id,
        createdAt: new Date(Date.now() - 3_600_000 - i * 1000),
        likes: 1000,
      })),
    );
    const before = await allPostIds(db(), 'hot');
    const published: string[] = [];
    let unliked = 0;
    const walked = await walkFeed(ctx.app, { order: 'hot', limit: 8 }, async (page, seen) => {
      // A post already shown gains likes: its score only rises, so it stays behind the reader.
      const shown = seen[(page * 5) % seen.length] as string;
      for (const fan of fans) await like(fan, shown);
      // A post still ahead loses a like: its score falls, further ahead, never behind the cursor.
      const stillAhead = ahead.find((id) => !seen.includes(id));
      if (stillAhead !== undefined) {
        await like(fans[unliked % fans.length] as RegisteredUser, stillAhead, 'unlike');
        unliked++;
      }
      // New posts score above everything older; the walk began before them and leaves them out.
      published.push((await createdPost(ctx.app, author.token, `hot during page ${page}`)).id);
    });
    expect(unliked).toBeGreaterThan(3);
    expect(new Set(walked).size).toBe(walked.length);
    expect([...walked].sort()).toEqual([...before].sort());
    for (const id of published) expect(walked).not.toContain(id);
    // A new walk sees everything, the posts published meanwhile included, once each.
    const fresh = await walkFeed(ctx.app, { order: 'hot', limit: 100 });
    expect([...fresh].sort()).toEqual([...before, ...published].sort());
  });

  it('hot: a post moves up when it is liked', async () => {
    const when = new Date(Date.now() - 3 * DAY);
    const [a, b] = await seedPosts(db(), [
      { userId: author.id, createdAt: when, likes: 0 },
      { userId: author.id, createdAt: when, likes: 0 },
    ]);
    const position = async (id: string) =>
      (await walkFeed(ctx.app, { order: 'hot', limit: 100 })).indexOf(id);
    // Equal scores: the greater id first.
    const [upper, lower] =
      (a as string) > (b as string) ? [a as string, b as string] : [b as string, a as string];
    expect(await position(upper)).toBeLessThan(await position(lower));
    // One like counts as none (log10(max(likes, 1))); the second puts it ahead.
    await like(fans[0] as RegisteredUser, lower);
    expect(await position(upper)).toBeLessThan(await position(lower));
    await like(fans[1] as RegisteredUser, lower);
    expect(await position(lower)).toBeLessThan(await position(upper));
    await like(fans[1] as RegisteredUser, lower, 'unlike');
    expect(await position(upper)).toBeLessThan(await position(lower));
  });

  it('hot: a new post with 1 like overtakes one with 100 likes once 25 hours younger, not before', async () => {
    // Each tenfold of likes is worth 45,000 s (12.5 h): 100 likes against 1 is 25 h.
    const point = overtakeSeconds(100, 1) * 1000;
    expect(point).toBe(25 * 3_600_000);
    const old = new Date(Date.now() - 60 * DAY);
    const [popular, tooEarly, lateEnough] = await seedPosts(db(), [
      { userId: author.id, createdAt: old, likes: 100 },
      { userId: author.id, createdAt: new Date(old.getTime() + point - 60_000), likes: 1 },
      { userId: author.id, createdAt: new Date(old.getTime() + point + 60_000), likes: 1 },
    ]);
    const order = await walkFeed(ctx.app, { order: 'hot', limit: 100 });
    const rank = (id: string | undefined) => order.indexOf(id as string);
    expect(rank(lateEnough)).toBeLessThan(rank(popular));
    expect(rank(popular)).toBeLessThan(rank(tooEarly));
    // In `new` order the likes do not matter at all.
    const newest = await walkFeed(ctx.app, { order: 'new', limit: 100 });
    const at = (id: string | undefined) => newest.indexOf(id as string);
    expect(at(lateEnough)).toBeLessThan(at(tooEarly));
    expect(at(tooEarly)).toBeLessThan(at(popular));
  });
});
