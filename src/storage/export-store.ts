import { createReadStream } from 'node:fs';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { LocalStorage } from './local-storage.js';
import type { MediaStorage } from './media-storage.js';
import { S3Storage } from './s3-storage.js';

/**
 * Where finished data-export zips are kept until they expire: beside the media, but never where media is
 * served from (a zip is reached only through its download link). Local files under `DATA_DIR/exports`, or
 * the media bucket under `exports/`, so every instance behind the load balancer can serve every zip.
 */
export interface ExportStore {
  /** Moves a finished zip (a file this instance built) into the store under `key`. */
  putFile(key: string, file: string): Promise<void>;
  /** The zip and its size, or undefined when it is gone. */
  open(key: string): Promise<{ stream: Readable; size: number } | undefined>;
  /**
   * A short-lived URL the client fetches the zip from directly, named `filename`; undefined when the zip is
   * gone, or when this store has none (local disk: the service streams the zip itself).
   */
  directUrl(key: string, filename: string, expiresInSeconds: number): Promise<string | undefined>;
  /** Removes zips; one already gone is not an error. */
  delete(keys: readonly string[]): Promise<void>;
}

/** The shape of every key the store makes (`<export id>-<random>.zip`); anything else is never touched. */
export const EXPORT_KEY_PATTERN = /^[0-9a-f-]{36}-[A-Za-z0-9_-]{16,64}\.zip$/;

function checkedKey(key: string): string {
  if (!EXPORT_KEY_PATTERN.test(key)) throw new Error('invalid export key');
  return key;
}

/** Zips as files of one directory (the one they are built in, so a finished zip is renamed into place). */
export class LocalExportStore implements ExportStore {
  constructor(readonly dir: string) {}

  async putFile(key: string, file: string): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    await rename(file, path.join(this.dir, checkedKey(key)));
  }

  async open(key: string): Promise<{ stream: Readable; size: number } | undefined> {
    if (!EXPORT_KEY_PATTERN.test(key)) return undefined;
    const handle = await open(path.join(this.dir, key), 'r').catch(() => undefined);
    if (!handle) return undefined;
    try {
      // Measured through the open handle: a zip removed meanwhile is still served whole.
      const { size } = await handle.stat();
      return { stream: handle.createReadStream(), size };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  async directUrl(): Promise<undefined> {
    return undefined;
  }

  async delete(keys: readonly string[]): Promise<void> {
    await Promise.all(keys.map((key) => rm(path.join(this.dir, checkedKey(key)), { force: true })));
  }
}

/** Zips as objects of the media bucket under `exports/`. */
export class S3ExportStore implements ExportStore {
  constructor(private readonly storage: S3Storage) {}

  async putFile(key: string, file: string): Promise<void> {
    const { size } = await stat(file);
    // Streamed from the file with its length (a PUT needs it): the zip is never held in memory.
    await this.storage.putStream(
      `exports/${checkedKey(key)}`,
      createReadStream(file),
      size,
      'application/zip',
    );
    await rm(file, { force: true });
  }

  async open(key: string): Promise<{ stream: Readable; size: number } | undefined> {
    if (!EXPORT_KEY_PATTERN.test(key)) return undefined;
    return this.storage.readWithSize(`exports/${key}`);
  }

  /**
   * A presigned GET of the zip: the download goes from the bucket to the client and never through the
   * service. Checked first (a HEAD), so a zip removed meanwhile is the service's 404, not the store's.
   */
  async directUrl(key: string, filename: string, expiresInSeconds: number): Promise<string | undefined> {
    if (!EXPORT_KEY_PATTERN.test(key) || !(await this.storage.exists(`exports/${key}`))) return undefined;
    return this.storage.presignedGetUrl(`exports/${key}`, {
      expiresInSeconds,
      filename,
      contentType: 'application/zip',
    });
  }

  async delete(keys: readonly string[]): Promise<void> {
    await this.storage.delete(keys.map((key) => `exports/${checkedKey(key)}`));
  }
}

/** The export store that goes with the media storage: the same bucket on S3, `dir` on local disk. */
export function createExportStore(media: MediaStorage, dir: string): ExportStore {
  if (media instanceof S3Storage) return new S3ExportStore(media);
  if (media instanceof LocalStorage || media.kind === 'local') return new LocalExportStore(dir);
  throw new Error('no export store for this media storage');
}
