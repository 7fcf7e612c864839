// @ts-check
/**
 * Creates the embedded database's files in an empty data directory (PGlite's initdb) and exits: run as a
 * short-lived process by pglite-thread.ts on the first start. initdb grows PGlite's WebAssembly memory to
 * ~0.9 GB, and a WebAssembly memory never shrinks: run in the service's own thread, that peak would stay in
 * the service for its whole life. Plain JavaScript, like pglite-worker.mjs.
 */
import { PGlite } from '@electric-sql/pglite';
import { PGLITE_START_PARAMS } from './pglite-settings.mjs';

const dir = process.argv[2];
if (!dir) throw new Error('usage: pglite-initdb.mjs <data directory>');
const pglite = await PGlite.create(dir, { startParams: PGLITE_START_PARAMS });
await pglite.close();
