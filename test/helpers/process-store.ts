import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../src/db/client.js';
import { loadMigrations, migrate } from '../../src/db/migrate.js';
import { type Backend, createTestDatabase, type TestDatabase } from './database.js';

/** Where the service's and the commands' processes keep their data for one suite, and how to remove it. */
export interface ProcessStore {
  /** DATA_DIR, DATABASE_URL for PostgreSQL, and the variables the suite passed. */
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

/**
 * A DATA_DIR (the embedded database lives there) and, for PostgreSQL, a fresh database, not migrated: the suite
 * runs the real `accounts migrate`. Our pool to it is closed, so only the started processes hold connections.
 * `migrated`: a PostgreSQL database copied from the run's migrated template instead, for a suite whose subject
 * is not the migration (an `accounts migrate` process costs a second of CPU); a new DATA_DIR is a copy of the
 * build's migrated template either way.
 */
export async function processStore(
  backend: Backend,
  env: Record<string, string> = {},
  { migrated = false }: { migrated?: boolean } = {},
): Promise<ProcessStore> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'accounts-process-'));
  let database: TestDatabase | undefined;
  const all: Record<string, string> = { ...env, DATA_DIR: dataDir };
  if (backend === 'postgres') {
    database = await createTestDatabase('postgres', { migrate: migrated });
    await database.handle.close();
    all.DATABASE_URL = database.url as string;
  }
  return {
    env: all,
    cleanup: async () => {
      await rm(dataDir, { recursive: true, force: true });
      if (database) await database.drop();
    },
  };
}

/**
 * Gives DATA_DIR an embedded database of an older build: initdb and every migration but the last, as an
 * installation made before the newest migration has it (a new DATA_DIR is a copy of this build's migrated
 * template). Resolves to the versions it lacks.
 */
export async function olderEmbeddedDatabase(dataDir: string): Promise<string[]> {
  const migrations = await loadMigrations();
  const handle = await openDatabase({ url: undefined, embeddedDir: path.join(dataDir, 'pglite') });
  try {
    await migrate(handle, migrations.slice(0, -1));
  } finally {
    await handle.close();
  }
  return migrations.slice(-1).map((migration) => migration.version);
}
