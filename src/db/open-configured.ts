import path from 'node:path';
import type { Config } from '../config.js';
import { type DatabaseHandle, openDatabase } from './client.js';

/** The configured database: the PostgreSQL server of DATABASE_URL, or the embedded one under DATA_DIR. */
export function openConfiguredDatabase(config: Config): Promise<DatabaseHandle> {
  return openDatabase({
    url: config.databaseUrl,
    embeddedDir: path.join(config.dataDir, 'pglite'),
    poolMax: config.databasePoolMax,
    timeouts: config.database,
  });
}
