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
 * Runs SQL straight on the bench database (the service must be stopped for PGlite, one process owning its
 * files). Each inserted inspirer joins the sampling pool through migration 0005's trigger, as in production.
 */
async function seedInspirers(database: BenchDatabase, from: number, to: number): Promise<void> {
  const url = database.env.DATABASE_URL;
  if (url === undefined) {
    const pglite = await PGlite.create(path.join(database.env.DATA_DIR as string, 'pglite'));
    try {
      await pglite.query(SEED_INSPIRERS_SQL, [from, to]);
      await pglite.exec('ANALYZE users; ANALYZE inspirers');
    } finally {
      await pglite.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(SEED_INSPIRERS_SQL, [from, to]);
    await client.query('ANALYZE users; ANALYZE inspirers');
  } finally {
    await client.end();
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
