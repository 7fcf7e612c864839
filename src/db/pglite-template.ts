import { existsSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrate } from './migrate.js';
import { PGliteThread } from './pglite-thread.js';

/**
 * The embedded database's template: a data directory made by initdb and carried through every migration of
 * this build, as PGlite's gzipped tarball. The build writes it (`npm run build`, build-template.ts); a new
 * DATA_DIR starts as a copy of it, so a first start neither runs initdb (~0.9 GB of WebAssembly memory and
 * several seconds) nor migrates from nothing. The test suite starts every in-memory database from it too.
 * From src/db (tests) and dist/db (the service) alike, two levels below the package root.
 */
export const BUILT_TEMPLATE = fileURLToPath(new URL('../../dist/pglite-template.tar.gz', import.meta.url));

/** The built template, when this installation has one (a build that skipped it starts with initdb). */
export function builtTemplate(file = BUILT_TEMPLATE): string | undefined {
  return existsSync(file) ? file : undefined;
}

/**
 * Makes a new in-memory database with initdb, applies every migration and writes its data directory to
 * `file` (written beside it, then renamed: a reader never sees half a template).
 */
export async function writeTemplate(file = BUILT_TEMPLATE): Promise<void> {
  const thread = await PGliteThread.open('memory://');
  try {
    await migrate({
      withSession: (work) =>
        work({
          exec: (script) => thread.exec(script),
          query: async <R>(sql: string, params?: unknown[]) => (await thread.query<R>(sql, params)).rows,
        }),
    });
    const tarball = await thread.dump();
    await mkdir(path.dirname(file), { recursive: true });
    const partial = `${file}.${process.pid}.partial`;
    await writeFile(partial, tarball);
    await rename(partial, file);
  } finally {
    await thread.close();
  }
}
