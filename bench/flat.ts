import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { LoadResult } from './load.js';
import { SIGNED_IN_USERS, seededDatabase, seededEmail } from './mix-seed.js';
import { probe } from './probe.js';
import type { Row } from './report.js';
import { startService } from './service.js';
import { type Settings, whole } from './settings.js';
import { mixSettings } from './traffic-mix.js';

interface FlatTimes {
  feedHot: LoadResult;
  feedNew: LoadResult;
  validateEmail: LoadResult;
  validateUsername: LoadResult;
}

/** The four reads whose cost must not grow with the tables, each timed by the paced probe (µs). */
async function measure(url: string, users: number, settings: Settings, rate: number): Promise<FlatTimes> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'accounts-bench-flat-'));
  const service = await startService({ DATA_DIR: dataDir, DATABASE_URL: url });
  try {
    let n = 0;
    // Seeded users spread over the whole table (taken: 422), so the index is probed everywhere.
    const taken = (field: 'email' | 'username') => () => {
      const user = 1 + ((n++ * 7919) % users);
      return new URLSearchParams({
        [field]: field === 'email' ? seededEmail(user) : `mix${user}`,
      }).toString();
    };
    const timed = async (target: string, what: Parameters<typeof probe>[3] = {}) => {
      if (settings.warmupSeconds > 0) await probe(target, rate, settings.warmupSeconds, what);
      return probe(target, rate, settings.seconds, what);
    };
    return {
      feedHot: await timed(`${service.url}/v1/post/raw/feed?order=hot`),
      feedNew: await timed(`${service.url}/v1/post/raw/feed?order=new`),
      validateEmail: await timed(`${service.url}/v1/validate/email`, {
        form: taken('email'),
        expectStatus: 422,
      }),
      validateUsername: await timed(`${service.url}/v1/validate/username`, {
        form: taken('username'),
        expectStatus: 422,
      }),
    };
  } finally {
    await service.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

export interface FlatBench {
  rows: Row[];
  summary: string;
}

/**
 * Flat parts: feed (hot, new: first page) and validate (email, username: a taken value) p50 on a small seed
 * (BENCH_FLAT_USERS 10,000 users, BENCH_FLAT_POSTS 10,000 posts, dropped afterwards) against the traffic-mix
 * seed (100,000 users, 1,000,000 posts): each an index descent, so p50 large ÷ small should stay ≤ 1.5.
 */
export async function benchFlat(
  serverUrl: string,
  settings: Settings,
  log: (line: string) => void,
): Promise<FlatBench> {
  const mix = mixSettings(process.env);
  const smallUsers = whole(process.env, 'BENCH_FLAT_USERS', 10_000, SIGNED_IN_USERS + 1000);
  const smallPosts = whole(process.env, 'BENCH_FLAT_POSTS', 10_000, 1000);
  const rate = whole(process.env, 'BENCH_FLAT_RATE', 100, 1);
  const smallName = `${mix.database}_flat`;
  const dataDir = await mkdtemp(path.join(tmpdir(), 'accounts-bench-flat-'));
  try {
    const small = await seededDatabase(
      serverUrl,
      smallName,
      { users: smallUsers, posts: smallPosts, likesPerPost: mix.likesPerPost },
      { DATA_DIR: dataDir },
      log,
    );
    const large = await seededDatabase(serverUrl, mix.database, mix, { DATA_DIR: dataDir }, log);
    const before = await measure(small.url, smallUsers, settings, rate);
    const after = await measure(large.url, mix.users, settings, rate);
    const label = (users: number, posts: number) =>
      `@${users.toLocaleString('en')} users, ${posts.toLocaleString('en')} posts`;
    const scenarios: Array<[string, keyof FlatTimes]> = [
      ['feed hot, first page', 'feedHot'],
      ['feed new, first page', 'feedNew'],
      ['validate/email (taken)', 'validateEmail'],
      ['validate/username (taken)', 'validateUsername'],
    ];
    const rows: Row[] = scenarios.flatMap(([name, key]) => [
      { scenario: `${name} ${label(smallUsers, smallPosts)}`, result: before[key] },
      {
        scenario: `${name} ${label(mix.users, mix.posts)}`,
        result: after[key],
        baseline: { scenario: label(smallUsers, smallPosts), result: before[key], metric: 'p50' as const },
      },
    ]);
    const ratios = scenarios.map(([name, key]) => {
      const ratio = after[key].p50 / before[key].p50;
      return `${name} ${ratio.toFixed(2)}${ratio <= 1.5 ? '' : ' (over 1.5)'}`;
    });
    return { rows, summary: `flat: p50 large ÷ small (target ≤ 1.5): ${ratios.join('; ')}.` };
  } finally {
    await dropDatabase(serverUrl, smallName);
    await rm(dataDir, { recursive: true, force: true });
  }
}
