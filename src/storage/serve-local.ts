import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import { notFound } from '../http/errors.js';
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
    const size = file
      ? await stat(file).then(
          (info) => (info.isFile() ? info.size : undefined),
          () => undefined,
        )
      : undefined;
    if (!file || size === undefined) return reply.code(404).send(notFound());
    const extension = key.slice(key.lastIndexOf('.') + 1);
    return reply
      .header('content-type', MEDIA_CONTENT_TYPES[extension] ?? 'application/octet-stream')
      .header('content-length', size)
      .header('cache-control', MEDIA_CACHE_CONTROL)
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', "default-src 'none'; sandbox")
      .send(createReadStream(file));
  });
}
