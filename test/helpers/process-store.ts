import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
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
 */
export async function processStore(
  backend: Backend,
  env: Record<string, string> = {},
): Promise<ProcessStore> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'accounts-process-'));
  let database: TestDatabase | undefined;
  const all: Record<string, string> = { ...env, DATA_DIR: dataDir };
  if (backend === 'postgres') {
    database = await createTestDatabase('postgres', { migrate: false });
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
