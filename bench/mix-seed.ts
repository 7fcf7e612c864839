import { createHash } from 'node:crypto';
import { hash } from '@node-rs/argon2';
import pg from 'pg';
import { SERVICE_ARGON2 } from './argon2-limit.js';
import { likeCountPattern } from './open-model.js';
import { migrate } from './service.js';

/** The password of every seeded user: one argon2id hash, made once per seeding, is stored for all of them. */
export const SEEDED_PASSWORD = 'correct horse battery staple';

/**
 * Users 1..LIKERS_FROM never like a seeded post: the bench signs in as them, so its like-then-unlike pairs
 * leave the seeded likes (and every like_count) as they found them.
 */
export const SIGNED_IN_USERS = 1000;

export interface SeedSize {
  users: number;
  posts: number;
  /** Mean likes per post; the total is exact when `posts` is a multiple of 1,000. */
  likesPerPost: number;
}

/** A seeded row's id, the same in SQL (`md5(kind || n)::uuid`) and here: the bench names rows without asking. */
export function seededId(kind: 'user' | 'post', n: number): string {
  const hex = createHash('md5').update(`${kind}${n}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function seededEmail(n: number): string {
  return `mix-${n}@bench.example`;
}

const USERS_SQL = `
INSERT INTO users (id, email, username, slug, gender, password_hash, email_verified, created_at, updated_at)
SELECT md5('user' || n)::uuid, 'mix-' || n || '@bench.example', 'mix' || n, 'mix-' || n, n % 2, $2, true,
       now() - ($1 - n) * interval '1 minute', now() - ($1 - n) * interval '1 minute'
FROM generate_series(1, $1::int) AS n
ORDER BY 1`;

// Post n is 7 s older than post n - 1; its author is scattered over every user; its like count comes from a
// heavy-tailed pattern of period 1,000 (a permutation of it, 7919 being prime to 1,000).
const POSTS_SQL = `
INSERT INTO posts (id, user_id, text, like_count, created_at, updated_at)
SELECT md5('post' || n)::uuid, md5('user' || (1 + (n::bigint * 104729) % $2))::uuid, 'bench post ' || n,
       ($3::int[])[1 + (n::bigint * 7919) % 1000], now() - n * interval '7 seconds', now() - n * interval '7 seconds'
FROM generate_series(1, $1::int) AS n
ORDER BY 1`;

// Exactly like_count likes per post, each by a different user above the signed-in ones.
const LIKES_SQL = `
INSERT INTO post_likes (post_id, user_id, created_at)
SELECT md5('post' || n)::uuid, md5('user' || ($4 + 1 + (n::bigint * 37 + k) % ($2 - $4)))::uuid,
       now() - n * interval '7 seconds' + k * interval '1 second'
FROM generate_series(1, $1::int) AS n,
     LATERAL generate_series(0, ($3::int[])[1 + (n::bigint * 7919) % 1000] - 1) AS k
ORDER BY 1, 2`;

const MARKER_SQL = `CREATE TABLE IF NOT EXISTS bench_seed (users integer, posts integer, likes bigint, seconds real)`;

async function admin(serverUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

export function databaseUrlOf(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** The complete seed's marker, or undefined when the database is missing or its seeding never finished. */
async function marker(url: string): Promise<{ users: number; posts: number } | undefined> {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
  } catch {
    return undefined;
  }
  try {
    const result = await client.query<{ users: number; posts: number }>(
      'SELECT users, posts FROM bench_seed LIMIT 1',
    );
    return result.rows[0];
  } catch {
    return undefined;
  } finally {
    await client.end();
  }
}

/**
 * Secondary indexes are dropped before the bulk insert and built again after it (one sort each instead of
 * millions of random inserts); the definitions are read back from the catalogue, so they are the schema's.
 */
async function withoutSecondaryIndexes(client: pg.Client, load: () => Promise<void>): Promise<void> {
  const { rows } = await client.query<{ name: string; definition: string }>(`
    SELECT i.relname AS name, pg_get_indexdef(i.oid) AS definition
    FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
    WHERE t.relname IN ('users', 'posts', 'post_likes') AND t.relnamespace = 'public'::regnamespace
      AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.oid)`);
  for (const { name } of rows) await client.query(`DROP INDEX ${pg.escapeIdentifier(name)}`);
  await load();
  for (const { definition } of rows) await client.query(definition);
}

export interface SeededDatabase {
  name: string;
  url: string;
  /** True when this run seeded it, false when a complete earlier seed was reused. */
  seededNow: boolean;
  seedSeconds: number;
}

/**
 * The database `name` on the server, seeded to `size` in set-based statements: kept after the run and reused
 * while its marker (table `bench_seed`) says a seed of this size completed; dropped and seeded again
 * otherwise (a missing marker is an interrupted seed). `DROP DATABASE name` removes it.
 */
export async function seededDatabase(
  serverUrl: string,
  name: string,
  size: SeedSize,
  env: Record<string, string>,
  log: (line: string) => void,
): Promise<SeededDatabase> {
  const url = databaseUrlOf(serverUrl, name);
  const existing = await marker(url);
  if (existing?.users === size.users && existing.posts === size.posts) {
    await migrate({ ...env, DATABASE_URL: url });
    return { name, url, seededNow: false, seedSeconds: 0 };
  }
  await admin(serverUrl, `DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
  await admin(serverUrl, `CREATE DATABASE ${pg.escapeIdentifier(name)}`);
  await migrate({ ...env, DATABASE_URL: url });
  const started = Date.now();
  const passwordHash = await hash(SEEDED_PASSWORD, SERVICE_ARGON2);
  const pattern = likeCountPattern(size.likesPerPost);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // The rows are consistent by construction (every author and liker exists): no per-row foreign key checks.
    await client.query("SET session_replication_role = 'replica'");
    await client.query("SET maintenance_work_mem = '256MB'");
    await withoutSecondaryIndexes(client, async () => {
      const step = async (what: string, text: string, params: unknown[]) => {
        const at = Date.now();
        const result = await client.query(text, params);
        log(
          `  seeded ${result.rowCount?.toLocaleString('en')} ${what} in ${((Date.now() - at) / 1000).toFixed(0)} s`,
        );
        return result.rowCount ?? 0;
      };
      await step('users', USERS_SQL, [size.users, passwordHash]);
      await step('posts', POSTS_SQL, [size.posts, size.users, pattern]);
      await step('likes', LIKES_SQL, [size.posts, size.users, pattern, SIGNED_IN_USERS]);
    });
    await client.query('ANALYZE users, posts, post_likes');
    const seconds = (Date.now() - started) / 1000;
    await client.query(MARKER_SQL);
    await client.query('INSERT INTO bench_seed SELECT $1, $2, (SELECT count(*) FROM post_likes), $3', [
      size.users,
      size.posts,
      seconds,
    ]);
    return { name, url, seededNow: true, seedSeconds: seconds };
  } finally {
    await client.end();
  }
}

export interface RelationSize {
  table: string;
  rows: number;
  /** pg_relation_size: the heap (and its TOAST) without indexes. */
  tableBytes: number;
  indexBytes: number;
  totalBytes: number;
}

/** Rows and bytes of the tables that grow with users, posts and likes (pg_total_relation_size and parts). */
export async function relationSizes(url: string): Promise<RelationSize[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('VACUUM ANALYZE users, posts, post_likes, api_tokens');
    const { rows } = await client.query<{
      table: string;
      table_bytes: string;
      index_bytes: string;
      total_bytes: string;
    }>(`
      SELECT c.relname AS table, pg_table_size(c.oid) AS table_bytes, pg_indexes_size(c.oid) AS index_bytes,
             pg_total_relation_size(c.oid) AS total_bytes
      FROM pg_class c
      WHERE c.relname IN ('users', 'posts', 'post_likes', 'api_tokens') AND c.relnamespace = 'public'::regnamespace
      ORDER BY c.relname`);
    const counted: RelationSize[] = [];
    for (const row of rows) {
      const count = await client.query<{ n: string }>(
        `SELECT count(*) AS n FROM ${pg.escapeIdentifier(row.table)}`,
      );
      counted.push({
        table: row.table,
        rows: Number(count.rows[0]?.n ?? 0),
        tableBytes: Number(row.table_bytes),
        indexBytes: Number(row.index_bytes),
        totalBytes: Number(row.total_bytes),
      });
    }
    return counted;
  } finally {
    await client.end();
  }
}
