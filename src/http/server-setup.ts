import { randomUUID } from 'node:crypto';
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import FindMyWay from 'find-my-way';
import type { UploadedFile } from '../validation/types.js';
import { ok } from './envelope.js';
import { methodNotAllowed, notFound, sendError, serviceUnavailable } from './errors.js';
import { type MultipartPart, multipartToObject, parsePhpStyle } from './params.js';

/** A client's own request id is kept only when it is short and plain, so it is safe to log and echo. */
export function requestId(request: { headers: Record<string, unknown> }): string {
  const incoming = request.headers['x-request-id'];
  return typeof incoming === 'string' && /^[A-Za-z0-9._-]{1,64}$/.test(incoming) ? incoming : randomUUID();
}

export interface BodyLimits {
  bodyLimitBytes: number;
  fileSizeLimitBytes: number;
}

/** Form bodies through the PHP-style parser; multipart with files buffered up to the file limit. */
export async function registerBodyParsers(app: FastifyInstance, limits: BodyLimits): Promise<void> {
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: limits.bodyLimitBytes },
    (_request, body, done) => done(null, parsePhpStyle(body as string)),
  );
  await app.register(multipart, {
    attachFieldsToBody: true,
    // An oversized file is a 422 on its field (`may not be greater than … kilobytes`), not a dropped request.
    throwFileSizeLimit: false,
    limits: {
      fileSize: limits.fileSizeLimitBytes,
      files: 5,
      fields: 200,
      parts: 205,
      fieldSize: limits.bodyLimitBytes,
    },
    onFile: async (part) => {
      const data = await part.toBuffer();
      // A browser sends an empty part for a file input left blank: that is an absent field, not a file.
      if (data.length === 0 && part.filename === '') return;
      const upload: UploadedFile = {
        kind: 'uploaded-file',
        fieldName: part.fieldname,
        fileName: part.filename,
        declaredType: part.mimetype,
        data,
        truncated: part.file.truncated,
      };
      (part as unknown as MultipartPart).upload = upload;
    },
  });
  app.addHook('preValidation', async (request) => {
    if (request.isMultipart() && request.body && typeof request.body === 'object') {
      request.body = multipartToObject(request.body as Record<string, MultipartPart | MultipartPart[]>);
    }
  });
}

/**
 * Unknown routes are a 404 envelope; a known path with the wrong method is a 405 with `Allow`. Fastify's own
 * router answers 404 for both, so a second router remembers every path's methods.
 */
export function registerFallbacks(app: FastifyInstance): void {
  const known = FindMyWay({ ignoreTrailingSlash: true, ignoreDuplicateSlashes: true });
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat().map((m) => m.toUpperCase() as FindMyWay.HTTPMethod)) {
      if (!known.hasRoute(method, route.url)) known.on(method, route.url, () => {});
    }
  });
  app.setNotFoundHandler((request: FastifyRequest, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'].filter(
      (method) => method !== request.method && known.find(method as 'GET', path) !== null,
    );
    if (allowed.length > 0) {
      return reply.code(405).header('allow', allowed.join(', ')).send(methodNotAllowed());
    }
    return reply.code(404).send(notFound());
  });
  app.setErrorHandler((error, request, reply) => sendError(error, request, reply));
}

export function registerHealth(app: FastifyInstance, ready: () => Promise<void>): void {
  app.get('/healthz', async () => ok({ status: 'ok' }));
  app.get('/readyz', async (request, reply) => {
    try {
      await ready();
      return ok({ status: 'ready' });
    } catch (error) {
      request.log.warn({ err: error }, 'readiness check failed');
      return reply.code(503).send(serviceUnavailable());
    }
  });
}

/**
 * Responses sent while the server is closing say `Connection: close`. Otherwise a keep-alive client (every
 * load balancer) keeps the socket of a request that was in flight at SIGTERM open for Fastify's 72 s
 * keep-alive timeout, and the drain can only end by the shutdown timeout, with exit code 1.
 */
export function closeConnectionsWhenClosing(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('connection', 'close');
  });
}
