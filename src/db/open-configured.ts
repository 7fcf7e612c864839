import path from 'node:path';
import type { Config } from '../config.js';
import type { Tracing } from '../lib/tracing.js';
import { checkDataDir } from '../startup-errors.js';
import { type DatabaseHandle, openDatabase } from './client.js';
import { secureDataDir } from './data-dir.js';
import { builtTemplate } from './pglite-template.js';

/**
 * The configured database: the PostgreSQL server of DATABASE_URL, or the embedded one under DATA_DIR (checked
 * first, when something will write there, so a bad DATA_DIR is one line naming it instead of a hang or a stack).
 * `withReplicas`: also the read replicas of DATABASE_REPLICA_URLS (the server's routed reads).
 */
export async function openConfiguredDatabase(
  config: Config,
  { withReplicas = false, tracing }: { withReplicas?: boolean; tracing?: Tracing } = {},
): Promise<DatabaseHandle> {
  if (config.databaseUrl === undefined || config.media.driver === 'local') {
    await checkDataDir(config.dataDir);
    // Owner-only, whatever the umask: DATA_DIR holds the embedded database and the media files.
    await secureDataDir(config.dataDir);
  }
  return openDatabase({
    url: config.databaseUrl,
    embeddedDir: path.join(config.dataDir, 'pglite'),
    // A new DATA_DIR starts as a copy of the build's migrated template: no initdb on the first start.
    embeddedTemplate: builtTemplate(),
    poolMax: config.databasePoolMax,
    timeouts: config.database,
    preparedStatements: config.databasePreparedStatements,
    tracing,
    // Only the server routes reads: operator commands and migrations read and write the primary alone.
    ...(withReplicas ? { replicaUrls: config.replicas.urls, replicaMaxLagMs: config.replicas.maxLagMs } : {}),
  });
}
