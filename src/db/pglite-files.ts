import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { extract } from 'tar';

/**
 * Left in a data directory copied from the template until its service secrets are its own (`ownSecrets`):
 * a start cut short between the copy and the new keys still makes them on the next start.
 */
const COPIED_MARK = 'accounts-copied-from-template';

/**
 * The keys of migration-made secrets (service_secrets: the feed and activity cursors' HMAC keys, the export
 * links' key) are drawn anew for every copy of the template: two installations, or two test databases, never
 * share one. PostgreSQL's strong random source, as the migrations draw them.
 */
const NEW_SECRETS =
  "UPDATE service_secrets SET secret = decode(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex')";

/** Whether `dir` is a copy of the template whose secrets are still the template's. */
export function copiedFromTemplate(dir: string, template: string | undefined): boolean {
  if (dir.startsWith('memory://')) return template !== undefined;
  return existsSync(path.join(dir, COPIED_MARK));
}

/** Draws the copy's own secrets, then forgets that it was a copy. */
export async function ownSecrets(dir: string, run: (statement: string) => Promise<unknown>): Promise<void> {
  await run(NEW_SECRETS);
  if (!dir.startsWith('memory://')) await unlink(path.join(dir, COPIED_MARK));
}

/** The first start's initdb, run as a process of its own (pglite-initdb.mjs says why). */
const INITDB_SCRIPT = fileURLToPath(new URL('../../src/db/pglite-initdb.mjs', import.meta.url));

/**
 * Gives a data directory that holds no database its files: a copy of `template` (a migrated data directory,
 * pglite-template.ts) when there is one, else PGlite's initdb. An in-memory database has no files here: its
 * thread loads the template (or runs initdb) itself.
 */
export async function createDataDir(dir: string, template: string | undefined): Promise<void> {
  if (dir.startsWith('memory://') || existsSync(path.join(dir, 'PG_VERSION'))) return;
  try {
    if (template === undefined) await initdb(dir);
    else await copyTemplate(template, dir);
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim();
    const reason = stderr || (error as Error).message;
    throw new Error(`the embedded database could not be created in ${dir}: ${reason}`);
  }
}

/**
 * Unpacks the template beside `dir`, then renames it into place: a start interrupted halfway leaves no
 * directory that looks like a database. Streamed from the file, so it costs a few MB of memory where
 * PGlite's own loader holds the whole unpacked directory (~40 MB, several copies) in the service's memory.
 */
async function copyTemplate(template: string, dir: string): Promise<void> {
  const partial = `${dir}.partial`;
  await rm(partial, { recursive: true, force: true });
  await mkdir(partial, { recursive: true, mode: 0o700 });
  // PGlite writes its entries with a leading `/`: they are read relative to `cwd`, as tar does by default.
  try {
    await extract({ file: template, cwd: partial });
    if (!existsSync(path.join(partial, 'PG_VERSION'))) throw new Error(`${template} holds no database`);
    await writeFile(path.join(partial, COPIED_MARK), '');
    // Replaces `dir` only when it is missing or empty; anything else in it is an operator's to look at.
    await rename(partial, dir);
  } catch (error) {
    await rm(partial, { recursive: true, force: true });
    throw error;
  }
}

/**
 * initdb in a short-lived process: its ~0.9 GB peak of WebAssembly memory ends with it instead of staying
 * in this one.
 */
async function initdb(dir: string): Promise<void> {
  await promisify(execFile)(process.execPath, [INITDB_SCRIPT, dir], {
    env: { PATH: process.env.PATH ?? '' },
  });
}
