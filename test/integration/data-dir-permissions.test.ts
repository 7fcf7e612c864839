import { chmod, lstat, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openConfiguredDatabase } from '../../src/server.js';

/** Every path under `dir` (itself included) whose mode lets anyone but the owner in. */
async function openToOthers(dir: string): Promise<string[]> {
  const found: string[] = [];
  const info = await lstat(dir);
  if ((info.mode & 0o077) !== 0) found.push(dir);
  if (info.isDirectory()) {
    for (const entry of await readdir(dir)) found.push(...(await openToOthers(path.join(dir, entry))));
  }
  return found;
}

async function countFiles(dir: string): Promise<number> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).length;
}

describe('DATA_DIR permissions', () => {
  const previousUmask = process.umask();
  const root = mkdtemp(path.join(tmpdir(), 'accounts-perm-'));
  afterAll(async () => {
    process.umask(previousUmask);
    await rm(await root, { recursive: true, force: true });
  });

  it('creates the embedded database owner-only under umask 022, and tightens files left world-readable', async () => {
    const dataDir = path.join(await root, 'data');
    // What an earlier run (before this fix) left behind: world-readable media and a world-writable directory.
    await mkdir(path.join(dataDir, 'media', 'profile-pictures'), { recursive: true });
    await chmod(path.join(dataDir, 'media'), 0o777);
    const oldPicture = path.join(dataDir, 'media', 'profile-pictures', 'abcdefghijklmnopqrstuv.png');
    await writeFile(oldPicture, 'png');
    await chmod(oldPicture, 0o666);

    process.umask(0o022);
    const database = await openConfiguredDatabase(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }));
    try {
      await database.db.selectNoFrom((eb) => eb.val(1).as('one')).execute();
    } finally {
      await database.close();
    }
    expect(await countFiles(path.join(dataDir, 'pglite'))).toBeGreaterThan(100);
    expect(await openToOthers(dataDir)).toEqual([]);
    expect((await lstat(oldPicture)).mode & 0o777).toBe(0o600);
  }, 120_000);
});
