import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { backfillUsernameSkeletons } from './backfill.js';
import type { DatabaseHandle } from './client.js';

/**
 * The SQL files live in src/db/migrations. This module runs from src/db (tests) and from dist/db (the built
 * service); both are two levels below the package root, so one relative path finds them from either.
 */
export const MIGRATIONS_DIR = fileURLToPath(new URL('../../src/db/migrations/', import.meta.url));

/** Any fixed number: every instance of the service takes the same advisory lock while migrating. */
const MIGRATION_LOCK_ID = 727_001;

export interface Migration {
  version: string;
  sql: string;
}

export async function loadMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((file) => /^\d{4}_[a-z0-9_]+\.sql$/.test(file)).sort();
  return Promise.all(
    files.map(async (file) => ({
      version: file.replace(/\.sql$/, ''),
      sql: await readFile(`${dir}/${file}`, 'utf8'),
    })),
  );
}

/**
 * Applies every migration not applied yet, each in its own transaction, under an advisory lock so that many
 * instances starting at once migrate exactly once. Returns the versions it applied.
 */
export async function migrate(
  handle: Pick<DatabaseHandle, 'withSession'>,
  migrations?: Migration[],
): Promise<string[]> {
  const pending = migrations ?? (await loadMigrations());
  return handle.withSession(async (session) => {
    await session.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    try {
      await session.exec(
        'CREATE TABLE IF NOT EXISTS schema_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
      );
      const done = new Set(
        (await session.query<{ version: string }>('SELECT version FROM schema_migrations')).map(
          (row) => row.version,
        ),
      );
      const applied: string[] = [];
      for (const migration of pending) {
        if (done.has(migration.version)) continue;
        await session.exec('BEGIN');
        try {
          await session.exec(migration.sql);
          await session.query('INSERT INTO schema_migrations (version) VALUES ($1)', [migration.version]);
          await session.exec('COMMIT');
        } catch (error) {
          await session.exec('ROLLBACK');
          throw new Error(`Migration ${migration.version} failed: ${(error as Error).message}`, {
            cause: error,
          });
        }
        applied.push(migration.version);
      }
      // Derived columns SQL cannot compute (0007's username skeletons), for rows written before them.
      await backfillUsernameSkeletons(session);
      return applied;
    } finally {
      await session.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]);
    }
  });
}

/** The migrations this build knows that the database has not applied (all of them on an empty database). */
export async function pendingMigrations(handle: DatabaseHandle): Promise<string[]> {
  const known = (await loadMigrations()).map((migration) => migration.version);
  const applied = await handle.withSession(async (session) => {
    const [table] = await session.query<{ name: string | null }>(
      "SELECT to_regclass('schema_migrations')::text AS name",
    );
    if (!table?.name) return new Set<string>();
    const rows = await session.query<{ version: string }>('SELECT version FROM schema_migrations');
    return new Set(rows.map((row) => row.version));
  });
  return known.filter((version) => !applied.has(version));
}
