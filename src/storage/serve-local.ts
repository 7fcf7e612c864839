import { type FileHandle, open } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import { sendRefusal } from '../http/errors.js';
import type { LocalStorage } from './local-storage.js';
import { MEDIA_CACHE_CONTROL, MEDIA_CONTENT_TYPES } from './media-storage.js';

/**
 * `GET /media/*`: the local storage's files. Only keys of the service's own shape are looked up; the type
 * comes from the extension the service chose when it re-encoded the image, and `nosniff` stops a browser
 * from guessing another one.
 */
export function serveLocalMedia(app: FastifyInstance, storage: LocalStorage): void {
  app.get('/media/*', async (request, reply) => {
    const key = (request.params as { '*': string })['*'];
    const file = storage.pathOf(key);
    // Opened first, then measured through the open handle: a picture replaced (and its old file removed)
    // between the two is either served whole from the handle or not found, never a failed read after the
    // headers went out. A 404 carries no cache header: the key may never be cached as missing for a year.
    const opened = file ? await openRegularFile(file) : undefined;
    if (!opened) return sendRefusal(reply, 'not_found');
    const { handle, size } = opened;
    const extension = key.slice(key.lastIndexOf('.') + 1);
    return reply
      .header('content-type', MEDIA_CONTENT_TYPES[extension] ?? 'application/octet-stream')
      .header('content-length', size)
      .header('cache-control', MEDIA_CACHE_CONTROL)
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', "default-src 'none'; sandbox")
      .send(handle.createReadStream());
  });
}

/** The open file and its size, or undefined when it is gone or not a regular file. */
async function openRegularFile(file: string): Promise<{ handle: FileHandle; size: number } | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const info = await handle.stat();
    if (info.isFile()) return { handle, size: info.size };
  } catch {
    // Treated as missing, like a failed open.
  }
  await handle.close();
  return undefined;
}
