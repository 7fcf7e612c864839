import { link, readFile, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '../config.js';

/** DATA_DIR is locked by a live process (a running server, or another command). */
export class DataDirInUseError extends ConfigError {
  constructor(readonly owner: number) {
    super(
      'DATA_DIR',
      `is in use by another accounts process (pid ${owner}); stop it or choose another DATA_DIR`,
    );
    this.name = 'DataDirInUseError';
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The lock of the embedded database under DATA_DIR (client.ts takes `${embeddedDir}.lock`). */
export function embeddedLockPath(dataDir: string): string {
  return path.join(dataDir, 'pglite.lock');
}

/** The live process other than this one that holds the lock, or undefined (none, or one that died). */
export async function liveLockOwner(lockPath: string): Promise<number | undefined> {
  const owner = Number((await readFile(lockPath, 'utf8').catch(() => '')).trim());
  return Number.isInteger(owner) && owner > 0 && owner !== process.pid && isRunning(owner)
    ? owner
    : undefined;
}

/**
 * PGlite is one process's database: a second process opening the same files would see a stale copy and then
 * corrupt them. A lock file holding the owner's pid keeps a second `npm start` on one DATA_DIR from starting;
 * a lock left by a process that died is taken over. Returns the release function.
 */
export async function lockDataDir(lockPath: string): Promise<() => Promise<void>> {
  // The pid is written to a file of our own first and then linked into place, which is atomic: whoever finds
  // the lock file finds the owner's pid in it, never an empty file that would look abandoned.
  const draft = `${lockPath}.${process.pid}`;
  await writeFile(draft, String(process.pid));
  try {
    return await takeLock(lockPath, draft);
  } finally {
    await unlink(draft).catch(() => undefined);
  }
}

async function takeLock(lockPath: string, draft: string): Promise<() => Promise<void>> {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await link(draft, lockPath);
      return () => unlink(lockPath).catch(() => undefined);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = await liveLockOwner(lockPath);
      if (owner !== undefined) throw new DataDirInUseError(owner);
      await unlink(lockPath).catch(() => undefined);
    }
  }
  throw new ConfigError('DATA_DIR', `could not be locked (${lockPath})`);
}
