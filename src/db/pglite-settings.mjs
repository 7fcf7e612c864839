// @ts-check
/**
 * How the embedded database (PGlite) is started, by its thread (pglite-worker.mjs) and by the first start's
 * initdb process (pglite-initdb.mjs) alike. Plain JavaScript, read from src/ in tests and in the built
 * service alike, because a Node 20 worker cannot run TypeScript.
 *
 * PostgreSQL's defaults size its memory for a server of its own (shared_buffers 128MB, WAL up to 1GB). In
 * PGlite every buffer is a page of the WebAssembly memory inside the service's process, and that memory
 * never shrinks once grown. One connection and an account database a fraction of shared_buffers do not need
 * them: these values took the restarted service's resident memory from ~295 to ~170 MB
 * (docs/performance.md, "Memory").
 */
import { PGlite } from '@electric-sql/pglite';

/** The settings PGlite starts with: its own defaults, then ours (a later `-c` wins). */
export const PGLITE_START_PARAMS = [
  // `startParams` replaces PGlite's defaults (single-user mode among them) rather than adding to them.
  ...PGlite.defaultStartParams,
  '-c',
  'shared_buffers=16MB',
  '-c',
  'wal_buffers=1MB',
  '-c',
  'min_wal_size=32MB',
  '-c',
  'max_wal_size=64MB',
  '-c',
  'work_mem=2MB',
];
