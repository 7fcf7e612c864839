import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A zip read with the system's Info-ZIP `unzip` (an independent reader, so a zip the service writes wrong
 * fails here): its entry names, and each entry's bytes.
 */
export async function readZip(
  data: Buffer,
): Promise<{ names: string[]; read(name: string): Promise<Buffer> }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'accounts-zip-'));
  const file = path.join(dir, 'export.zip');
  await writeFile(file, data);
  // `-t` checks every entry's CRC; a broken archive fails the test here.
  await run('unzip', ['-tq', file]);
  const { stdout } = await run('unzip', ['-Z1', file]);
  const names = stdout.split('\n').filter((line) => line !== '');
  const contents = new Map<string, Buffer>();
  for (const name of names) {
    const { stdout: bytes } = await run('unzip', ['-p', file, name], {
      encoding: 'buffer',
      maxBuffer: 64 * 1024 ** 2,
    });
    contents.set(name, bytes);
  }
  await rm(dir, { recursive: true, force: true });
  return {
    names,
    read: async (name) => {
      const bytes = contents.get(name);
      if (!bytes) throw new Error(`no ${name} in the zip`);
      return bytes;
    },
  };
}
