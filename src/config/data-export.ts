import path from 'node:path';
import { type Env, integer } from './env.js';
import { duration } from './mail.js';

/** Data exports: how long a finished one stays downloadable, where its zips are kept, how often jobs run. */
export interface DataExportConfig {
  /** EXPORT_TTL_HOURS: a ready export's link works this long; then it expires and its zip is removed. */
  ttlMs: number;
  /** EXPORT_JOB_INTERVAL: how often an instance looks for exports to build (left by a crash) or expire. */
  jobIntervalMs: number;
  /** Where zips are built, and kept with local media storage (`DATA_DIR/exports`). */
  dir: string;
}

export function parseDataExport(env: Env, dataDir: string): DataExportConfig {
  return {
    ttlMs: integer(env, 'EXPORT_TTL_HOURS', 24, 1, 24 * 30) * 3_600_000,
    jobIntervalMs: duration(env, 'EXPORT_JOB_INTERVAL', '60s', 100, 86_400_000),
    dir: path.join(dataDir, 'exports'),
  };
}
