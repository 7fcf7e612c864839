import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import type { BenchDatabase } from './database.js';
import { warmThenRun } from './load.js';
import type { Row } from './report.js';
import { startService } from './service.js';
import type { Settings } from './settings.js';

/** Inspirers with their own addresses, so they never clash with the users the other scenarios seed. */
const SEED_INSPIRERS_SQL = `
INSERT INTO users (id, email, username, slug, gender, is_inspirer)
SELECT gen_random_uuid(), 'inspirer-' || n || '@bench.example', 'inspirer' || n, 'inspirer-' || n, n % 2, true
FROM generate_series($1::int, $2::int) AS n`;

/**
 * The pool the trigger of migration 0005 would build one row at a time (ranks N+1, N+2, … for the new
 * inspirers), in one statement: 100,000 trigger calls would spend a minute of the run on seeding.
 */
const SEED_POOL_SQL = `
INSERT INTO inspirers (user_id, rank)
SELECT u.id, (SELECT coalesce(max(rank), 0) FROM inspirers) + row_number() OVER (ORDER BY u.id)
FROM users u
WHERE u.is_inspirer AND u.disabled_at IS NULL AND NOT EXISTS (SELECT 1 FROM inspirers i WHERE i.user_id = u.id)`;

/** The statements of one seeding, in order, in one transaction with the triggers off (replica role). */
const SEED_STEPS: Array<[string, boolean]> = [
  ['BEGIN', false],
  ['SET LOCAL session_replication_role = replica', false],
  [SEED_INSPIRERS_SQL, true],
  [SEED_POOL_SQL, false],
  ['COMMIT', false],
  ['ANALYZE users', false],
  ['ANALYZE inspirers', false],
];

/** Runs the seeding straight on the bench database (the service must be stopped for PGlite: one owner). */
async function seedInspirers(database: BenchDatabase, from: number, to: number): Promise<void> {
  const url = database.env.DATABASE_URL;
  const open = async () => {
    if (url === undefined) {
      const pglite = await PGlite.create(path.join(database.env.DATA_DIR as string, 'pglite'));
      return {
        query: (text: string, values: unknown[]) => pglite.query(text, values),
        close: () => pglite.close(),
      };
    }
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    return {
      query: (text: string, values: unknown[]) => client.query(text, values),
      close: () => client.end(),
    };
  };
  const session = await open();
  try {
    for (const [text, takesRange] of SEED_STEPS) await session.query(text, takesRange ? [from, to] : []);
  } finally {
    await session.close();
  }
}

export const SMALL_INSPIRERS = 10;
export const LARGE_INSPIRERS = 100_000;

/**
 * `promotions/inspirers` (limit 10, two ids excluded) with 10 inspirers, then with 100,000: a sample costs a
 * probe per drawn rank (docs/inspirers.md), so the second row's req/s stays near the first's.
 */
export async function benchInspirers(database: BenchDatabase, settings: Settings): Promise<Row[]> {
  const measure = async () => {
    const service = await startService(database.env);
    try {
      return await warmThenRun(
        {
          url: service.url,
          path: `/v1/promotions/inspirers?limit=10&exclude[]=${crypto.randomUUID()}&exclude[]=${crypto.randomUUID()}`,
          connections: settings.connections,
          seconds: settings.seconds,
        },
        settings.warmupSeconds,
      );
    } finally {
      await service.stop();
    }
  };
  await seedInspirers(database, 1, SMALL_INSPIRERS);
  const small = await measure();
  await seedInspirers(database, SMALL_INSPIRERS + 1, LARGE_INSPIRERS);
  const large = await measure();
  const smallName = `promotions/inspirers @${SMALL_INSPIRERS} inspirers`;
  return [
    { scenario: smallName, result: small },
    {
      scenario: `promotions/inspirers @${LARGE_INSPIRERS.toLocaleString('en')} inspirers`,
      result: large,
      baseline: { scenario: smallName, result: small, metric: 'req/s' },
    },
  ];
}
