import { execFile } from 'node:child_process';
import { createReadStream, existsSync, mkdirSync } from 'node:fs';
import { mkdir, rename, rm, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Parser } from 'tar';

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
 * directory that looks like a database. Read as a stream, so it holds at most the unpacked directory once
 * (~40 MB, before the database starts) where PGlite's own loader holds it several times over beside the
 * running database.
 */
async function copyTemplate(template: string, dir: string): Promise<void> {
  const partial = `${dir}.partial`;
  await rm(partial, { recursive: true, force: true });
  await mkdir(partial, { recursive: true, mode: 0o700 });
  try {
    await unpack(template, partial);
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
 * Writes the template's directories and files under `dir`. tar reads the format; the files are written
 * here, all at once, because tar's own extraction writes them one after another: 1.5–2.7 s for the
 * template's 1,124 files on a disk where creating a file costs about a millisecond, against 1.1 s. Every
 * path is kept inside `dir` (PGlite writes its entries with a leading `/`).
 */
async function unpack(template: string, dir: string): Promise<void> {
  const writes: Promise<void>[] = [];
  const made = new Set<string>();
  const directory = (target: string) => {
    if (made.has(target)) return;
    mkdirSync(target, { recursive: true, mode: 0o700 });
    made.add(target);
  };
  const inside = (entryPath: string) => path.join(dir, path.posix.normalize(`/${entryPath}`));
  const parser: Parser = new Parser({
    strict: true,
    onReadEntry: (entry) => {
      const target = inside(entry.path);
      if (entry.type === 'Directory') {
        directory(target);
        entry.resume();
        return;
      }
      if (entry.type !== 'File') {
        parser.abort(new Error(`${template} holds a ${entry.type} entry`));
        return;
      }
      const chunks: Buffer[] = [];
      entry.on('data', (chunk: Buffer) => chunks.push(chunk));
      entry.on('end', () => {
        directory(path.dirname(target));
        writes.push(writeFile(target, Buffer.concat(chunks), { mode: 0o600 }));
      });
    },
  });
  const read = await pipeline(createReadStream(template), parser).then(
    () => ({ ok: true as const }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  // Every write has ended before the caller removes a failed copy.
  const failed = (await Promise.allSettled(writes)).find((write) => write.status === 'rejected');
  if (!read.ok) throw read.error;
  if (failed) throw failed.reason;
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
