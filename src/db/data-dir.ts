import { chmod, lstat, mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';

/** Owner-only: the embedded database and the stored media are nobody else's to read or change. */
const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

/**
 * Makes DATA_DIR and everything in it the service user's alone, whatever the umask it was started with:
 * PGlite creates its files 0666 under the usual umask 022 (pg_hba.conf included), so any local user could
 * read or edit the accounts database.
 *
 * Sets this process's umask to 077 first (every file and directory created from now on, by PGlite or the
 * media storage, is owner-only from birth), then tightens what earlier runs left. Symbolic links are left
 * alone (chmod would follow them out of the directory).
 */
export async function secureDataDir(dir: string): Promise<void> {
  process.umask(0o077);
  await mkdir(dir, { recursive: true, mode: DIR_MODE });
  await tighten(dir);
}

/**
 * Owner-only modes for a directory tree. PGlite needs it after opening: its file system layer creates the
 * initial cluster files 0666 whatever the umask (files it makes later do follow the umask).
 */
export async function tighten(target: string): Promise<void> {
  const info = await lstat(target);
  if (info.isSymbolicLink()) return;
  if (info.isDirectory()) {
    if ((info.mode & 0o777) !== DIR_MODE) await chmod(target, DIR_MODE);
    for (const entry of await readdir(target)) await tighten(path.join(target, entry));
    return;
  }
  if ((info.mode & 0o077) !== 0) await chmod(target, info.mode & FILE_MODE);
}
