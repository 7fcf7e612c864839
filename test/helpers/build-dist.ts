import { execFile } from 'node:child_process';
import { mkdir, readdir, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const LOCK = path.join(ROOT, '.dist-build.lock');
/** Touched after every build: a test file that asked before this moment gets the build without compiling. */
const STAMP = path.join(ROOT, 'dist', '.built-by-tests');
/** A lock older than this was left by a run that was killed mid-build. */
const STALE_LOCK_MS = 10 * 60_000;

/** Runs `work` while holding a lock directory (mkdir is atomic), so test files build one at a time. */
async function withBuildLock(work: () => Promise<void>): Promise<void> {
  const deadline = Date.now() + 2 * STALE_LOCK_MS;
  for (;;) {
    try {
      await mkdir(LOCK);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const since = await stat(LOCK).then(
        (s) => Date.now() - s.mtimeMs,
        () => 0,
      );
      if (since > STALE_LOCK_MS) await rmdir(LOCK).catch(() => undefined);
      if (Date.now() > deadline) throw new Error(`dist build lock ${LOCK} held too long`);
      await sleep(250);
    }
  }
  try {
    await work();
  } finally {
    await rmdir(LOCK).catch(() => undefined);
  }
}

/** tsc into a staging directory, then each file renamed into dist/ (atomic: no reader sees half a module). */
async function compile(): Promise<void> {
  const staging = path.join(ROOT, `.dist-staging-${process.pid}`);
  try {
    const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
    await promisify(execFile)(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', staging], {
      cwd: ROOT,
    });
    // The web pages' browser modules, as `npm run build` compiles them (web/tsconfig.json → dist/public/assets).
    await promisify(execFile)(
      process.execPath,
      [tsc, '-p', 'web/tsconfig.json', '--outDir', path.join(staging, 'public/assets')],
      { cwd: ROOT },
    );
    for (const file of await readdir(staging, { recursive: true })) {
      if (!(await stat(path.join(staging, file))).isFile()) continue;
      await mkdir(path.dirname(path.join(ROOT, 'dist', file)), { recursive: true });
      await rename(path.join(staging, file), path.join(ROOT, 'dist', file));
    }
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/**
 * Compiles src/ (and web/) to dist/ as `npm run build` does, so the processes under test run today's code. Several
 * test files call this at once (two workers): they build one at a time, and one that waited while another
 * built the same sources takes that build instead of compiling again (on two busy cores a second tsc costs
 * minutes). Files are moved into dist/ atomically, so a process another test file starts meanwhile never reads
 * a half-written module.
 */
export async function buildDist(): Promise<void> {
  const asked = Date.now();
  await withBuildLock(async () => {
    const built = await stat(STAMP).then(
      (s) => s.mtimeMs,
      () => 0,
    );
    if (built >= asked) return;
    await compile();
    await writeFile(STAMP, '');
  });
}
