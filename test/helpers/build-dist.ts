import { execFile } from 'node:child_process';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** What the build compiles from: a file here newer than the build's last output makes dist/ stale. */
const SOURCES = ['src', 'web', 'tsconfig.json', 'tsconfig.build.json', 'package.json'];
/** The build's last step writes this file (package.json `build`), so its time is the build's. */
const LAST_OUTPUT = path.join(ROOT, 'dist', 'pglite-template.tar.gz');

async function newestChange(entry: string): Promise<number> {
  const info = await stat(entry).catch(() => undefined);
  if (!info) return 0;
  if (!info.isDirectory()) return info.mtimeMs;
  let newest = info.mtimeMs;
  for (const name of await readdir(entry, { recursive: true })) {
    const file = await stat(path.join(entry, name)).catch(() => undefined);
    if (file && file.mtimeMs > newest) newest = file.mtimeMs;
  }
  return newest;
}

/** Whether dist/ was built after every change to what it is built from. */
export async function distIsFresh(): Promise<boolean> {
  const built = await stat(LAST_OUTPUT).then(
    (s) => s.mtimeMs,
    () => 0,
  );
  const changes = await Promise.all(SOURCES.map((entry) => newestChange(path.join(ROOT, entry))));
  return built > 0 && changes.every((changed) => changed <= built);
}

/**
 * Builds dist/ as `npm run build` does (the service, the pages' modules, the embedded database's template),
 * unless it is already newer than every source: once per test run, before any test file starts, so the
 * processes and pages under test run today's code and no file ever compiles it itself. After `npm ci`
 * (whose `prepare` builds) this costs one look at the files' times.
 */
export async function buildDistOnce(): Promise<'fresh' | 'built'> {
  if (await distIsFresh()) return 'fresh';
  await promisify(execFile)('npm', ['run', '--silent', 'build'], { cwd: ROOT });
  return 'built';
}
