import { randomBytes } from 'node:crypto';
import { lstat, mkdir, open, readdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { MEDIA_KEY_PATTERN, type MediaStorage, type StoredFile } from './media-storage.js';

/** Files under one directory (`DATA_DIR/media`), served by the service itself at `/media/*`. */
export class LocalStorage implements MediaStorage {
  readonly kind = 'local';

  constructor(
    readonly dir: string,
    private readonly baseUrl: string,
  ) {}

  /** The file of a key, or undefined for a key the service would never have made. */
  pathOf(key: string): string | undefined {
    return MEDIA_KEY_PATTERN.test(key) ? path.join(this.dir, key) : undefined;
  }

  async put(key: string, data: Buffer): Promise<void> {
    const file = this.pathOf(key);
    if (!file) throw new Error(`invalid media key: ${key}`);
    await mkdir(path.dirname(file), { recursive: true });
    // Written beside the target and renamed into place: a reader never sees half a file.
    const partial = `${file}.${randomBytes(6).toString('hex')}.partial`;
    try {
      await writeFile(partial, data, { flag: 'wx' });
      await rename(partial, file);
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    }
  }

  async read(key: string): Promise<Readable | undefined> {
    const file = this.pathOf(key);
    if (!file) return undefined;
    // Opened now, so a file removed before the stream is read is still read whole (or reported gone here).
    const handle = await open(file, 'r').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    return handle?.createReadStream();
  }

  async delete(keys: readonly string[]): Promise<void> {
    await Promise.all(
      keys.map(async (key) => {
        const file = this.pathOf(key);
        if (file) await rm(file, { force: true });
      }),
    );
  }

  /**
   * Every regular file under the directory with its age: `key` when its name is a key the service makes,
   * `partial` for a write a crash left behind. One directory level per media folder, listed lazily.
   */
  async *files(): AsyncGenerator<StoredFile> {
    const folders = await readdir(this.dir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return [];
      throw error;
    });
    for (const folder of folders) {
      if (!folder.isDirectory()) continue;
      for (const name of await readdir(path.join(this.dir, folder.name))) {
        const file = path.join(this.dir, folder.name, name);
        const info = await lstat(file).catch(() => undefined);
        if (!info?.isFile()) continue;
        const key = `${folder.name}/${name}`;
        yield {
          key: MEDIA_KEY_PATTERN.test(key) ? key : undefined,
          partial: name.endsWith('.partial'),
          path: file,
          modified: info.mtime,
        };
      }
    }
  }

  /** Removes a leftover partial file (by its path, since it has no key). */
  async removeFile(file: string): Promise<void> {
    if (!file.startsWith(this.dir + path.sep)) throw new Error('not under the media directory');
    await rm(file, { force: true });
  }

  url(key: string): string {
    return `${this.baseUrl}/${key}`;
  }
}
