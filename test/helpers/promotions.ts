import { randomBytes } from 'node:crypto';
import { type KyselyPlugin, sql } from 'kysely';
import type { Executor } from '../../src/db/transaction.js';

/**
 * Adds `count` users straight into the database in one statement (registering thousands through the API
 * would spend the run in argon2), marked inspirer or not; returns their ids in creation order.
 */
export async function seedUsers(db: Executor, count: number, inspirer: boolean): Promise<string[]> {
  const tag = randomBytes(4).toString('hex');
  const { rows } = await sql<{ id: string }>`
    INSERT INTO users (id, email, username, slug, gender, is_inspirer)
    SELECT gen_random_uuid(), 'seed-' || ${tag} || '-' || n || '@example.com', 'seed' || ${tag} || n,
           'seed-' || ${tag} || '-' || n, n % 2, ${inspirer}
    FROM generate_series(1, ${count}::int) AS n
    ORDER BY n
    RETURNING id`.execute(db);
  return rows.map((row) => row.id);
}

/** Takes every inspirer out of the pool, so a test samples only the inspirers it made. */
export async function clearInspirers(db: Executor): Promise<void> {
  await db.updateTable('users').set({ is_inspirer: false }).where('is_inspirer', '=', true).execute();
}

/** Counts the queries Kysely sends through a database it is plugged into. */
export function queryCounter(): KyselyPlugin & { count: number } {
  return {
    count: 0,
    transformQuery(args) {
      this.count += 1;
      return args.node;
    },
    async transformResult(args) {
      return args.result;
    },
  };
}
