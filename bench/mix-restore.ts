import pg from 'pg';
import { SIGNED_IN_USERS } from './mix-seed.js';

/** Leaves the seed as it was: the run's sign-ups, posts, tokens and the likes of the signed-in users go. */
export async function restoreSeed(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(
      `WITH gone AS (
         DELETE FROM post_likes WHERE user_id IN (SELECT md5('user' || n)::uuid FROM generate_series(1, $1::int) AS n)
         RETURNING post_id)
       UPDATE posts SET like_count = posts.like_count - g.likes
       FROM (SELECT post_id, count(*)::int AS likes FROM gone GROUP BY post_id) AS g WHERE posts.id = g.post_id`,
      [SIGNED_IN_USERS],
    );
    await client.query("DELETE FROM posts WHERE text LIKE 'bench mix post %'");
    await client.query("DELETE FROM users WHERE email LIKE 'reg-%@bench.example'");
    await client.query('DELETE FROM api_tokens');
  } finally {
    await client.end();
  }
}

export async function countCreatedPosts(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>(
      "SELECT count(*) AS n FROM posts WHERE text LIKE 'bench mix post %'",
    );
    return Number(rows[0]?.n ?? 0);
  } finally {
    await client.end();
  }
}
