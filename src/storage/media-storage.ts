import type { Readable } from 'node:stream';

/**
 * Where image files live. Two implementations behind this one interface: local files (zero setup) and
 * S3-compatible object storage (shared by every instance when the service scales out).
 */
export interface MediaStorage {
  readonly kind: 'local' | 's3';
  /** Writes one file; on success it is readable at `url(key)`. */
  put(key: string, data: Buffer, contentType: string): Promise<void>;
  /** Reads one file as a stream (a data export copies a user's images); undefined when it is gone. */
  read(key: string): Promise<Readable | undefined>;
  /** Removes files; a key that is already gone is not an error. */
  delete(keys: readonly string[]): Promise<void>;
  /** The public URL of a key. */
  url(key: string): string;
}

/** A stored file as the orphan sweep sees it. */
export interface StoredFile {
  /** The key, when the name is one the service makes (anything else is never touched). */
  key: string | undefined;
  /** A write cut short (local files only: `<key>.<random>.partial`). */
  partial: boolean;
  /** Where it is (a local path, or the object's name). */
  path: string;
  modified: Date;
}

/** Storage the orphan sweep can list and clean. */
export interface SweepableStorage {
  files(): AsyncIterable<StoredFile>;
  removeFile(path: string): Promise<void>;
  delete(keys: readonly string[]): Promise<void>;
}

/** Every stored file is served for a year: its name is random and never reused, so it never changes. */
export const MEDIA_CACHE_CONTROL = 'public, max-age=31536000, immutable';

/** The only file types the service stores (re-encoded images), by extension. */
export const MEDIA_CONTENT_TYPES: Record<string, string> = {
  jpg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
};

/**
 * The shape of every key the service makes: a folder, a random name and a known extension. Anything else is
 * refused before touching the disk, which also rules out path traversal (`..`, `/`, `\`, NUL).
 */
export const MEDIA_KEY_PATTERN = /^[a-z0-9-]{1,32}\/[A-Za-z0-9_-]{16,64}\.(jpg|png|gif)$/;
