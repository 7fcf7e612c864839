import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import type { BenchDatabase } from './database.js';
import type { LoadResult } from './load.js';
import { probe } from './probe.js';
import type { Row } from './report.js';
import { startService } from './service.js';
import { type Settings, whole } from './settings.js';

/**
 * Posts `from`..`to` in ONE statement, by authors among the first 100 seeded users: one every 7 s going
 * back from now, with likes spread 0–499 (the database generates hot_score, as for every post).
 */
const SEED_POSTS_SQL = `
WITH authors AS (SELECT array_agg(id) AS ids FROM (SELECT id FROM users ORDER BY id LIMIT 100) AS some_users)
INSERT INTO posts (id, user_id, text, like_count, created_at, updated_at)
SELECT gen_random_uuid(), ids[1 + n % array_length(ids, 1)], 'bench post ' || n, (n::bigint * 7919) % 500,
       now() - n * interval '7 seconds', now() - n * interval '7 seconds'
FROM authors, generate_series($1::int, $2::int) AS n`;

/** Runs statements straight on the database (the service must be stopped for PGlite: one process owns it). */
async function onDatabase(database: BenchDatabase, statements: Array<[string, unknown[]]>): Promise<void> {
  if (database.name === 'pglite') {
    const pglite = await PGlite.create(path.join(database.env.DATA_DIR as string, 'pglite'));
    try {
      for (const [text, params] of statements) await pglite.query(text, params);
    } finally {
      await pglite.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: database.env.DATABASE_URL });
  await client.connect();
  try {
    for (const [text, params] of statements) await client.query(text, params);
  } finally {
    await client.end();
  }
}

interface FeedTimes {
  newFirst: LoadResult;
  newDeep: LoadResult;
  hotFirst: LoadResult;
  hotDeep: LoadResult;
}

/** The cursor after walking `pages` pages of 100: a page deep in the feed, not only its top. */
async function deepCursor(url: string, order: string, pages: number): Promise<string> {
  let cursor = '';
  for (let page = 0; page < pages; page++) {
    const query = new URLSearchParams({ order, limit: '100', ...(cursor ? { cursor } : {}) });
    const response = await fetch(`${url}/v1/post/raw/feed?${query}`);
    const body = (await response.json()) as { data?: { next_cursor?: string | null } };
    const next = body.data?.next_cursor;
    if (response.status !== 200 || typeof next !== 'string') {
      throw new Error(`feed answered ${response.status}: ${JSON.stringify(body).slice(0, 300)}`);
    }
    cursor = next;
  }
  return cursor;
}

async function measure(database: BenchDatabase, settings: Settings, rate: number): Promise<FeedTimes> {
  const service = await startService(database.env);
  try {
    const timed = async (order: string, cursor?: string) => {
      const query = new URLSearchParams({ order, limit: '20', ...(cursor ? { cursor } : {}) });
      const url = `${service.url}/v1/post/raw/feed?${query}`;
      if (settings.warmupSeconds > 0) await probe(url, rate, settings.warmupSeconds);
      return probe(url, rate, settings.seconds);
    };
    return {
      newFirst: await timed('new'),
      newDeep: await timed('new', await deepCursor(service.url, 'new', 50)),
      hotFirst: await timed('hot'),
      hotDeep: await timed('hot', await deepCursor(service.url, 'hot', 50)),
    };
  } finally {
    await service.stop();
  }
}

export interface FeedBench {
  rows: Row[];
  /** p50 at the large size over p50 at the small one, per scenario, against the 1.5 target. */
  summary: string;
}

/**
 * `feed new/hot` at BENCH_FEED_SMALL_POSTS (10,000) and BENCH_FEED_LARGE_POSTS (1,000,000) posts: the first
 * page and a page 5,000 posts deep, each timed by the paced probe (µs resolution; a page answers in about a
 * millisecond, below autocannon's whole-millisecond histogram). Keyset pagination on an index should cost
 * the same at both sizes: p50 ratio ≤ 1.5. Runs after the other scenarios (users are seeded, service stopped).
 */
export async function benchFeed(database: BenchDatabase, settings: Settings): Promise<FeedBench> {
  const small = whole(process.env, 'BENCH_FEED_SMALL_POSTS', 10_000, 5_001);
  const large = whole(process.env, 'BENCH_FEED_LARGE_POSTS', 1_000_000, small + 1);
  const rate = whole(process.env, 'BENCH_FEED_RATE', 100, 1);
  const seed = (from: number, to: number) =>
    onDatabase(database, [
      [SEED_POSTS_SQL, [from, to]],
      ['ANALYZE posts', []],
    ]);
  await seed(1, small);
  const before = await measure(database, settings, rate);
  const started = Date.now();
  await seed(small + 1, large);
  const seeding = (Date.now() - started) / 1000;
  const after = await measure(database, settings, rate);

  const label = (count: number) => count.toLocaleString('en');
  const scenarios: Array<[string, keyof FeedTimes]> = [
    ['feed new, first page', 'newFirst'],
    ['feed new, 5,000 deep', 'newDeep'],
    ['feed hot, first page', 'hotFirst'],
    ['feed hot, 5,000 deep', 'hotDeep'],
  ];
  const rows: Row[] = scenarios.flatMap(([name, key]) => [
    { scenario: `${name} @${label(small)}`, result: before[key] },
    {
      scenario: `${name} @${label(large)}`,
      result: after[key],
      baseline: { scenario: `@${label(small)}`, result: before[key], metric: 'p50' as const },
    },
  ]);
  const ratios = scenarios.map(([name, key]) => {
    const ratio = after[key].p50 / before[key].p50;
    return `${name} ${ratio.toFixed(2)}${ratio <= 1.5 ? '' : ' (over 1.5)'}`;
  });
  const summary =
    `feed: p50 at ${label(large)} posts ÷ p50 at ${label(small)} (target ≤ 1.5): ${ratios.join('; ')}. ` +
    `Seeding ${label(large - small)} posts took ${seeding.toFixed(0)} s.`;
  return { rows, summary };
}
