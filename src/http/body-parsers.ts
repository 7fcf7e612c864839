import type { IncomingMessage } from 'node:http';
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { UploadedFile } from '../validation/types.js';
import { type MultipartPart, multipartToObject, parsePhpStyle, QS_OPTIONS } from './params.js';

export interface BodyLimits {
  bodyLimitBytes: number;
  fileSizeLimitBytes: number;
}

/** Files one multipart request may carry (a profile picture; a post's images). */
const MAX_FILES = 5;

/**
 * Route options for an endpoint that takes no file: a multipart body may still carry its text fields, but a
 * file part is refused (413) as soon as it starts, instead of being read into memory for nothing.
 */
export const NO_FILES = { multipartOptions: { limits: { files: 0 } } };

function filesAllowed(config: unknown): number {
  const files = (config as typeof NO_FILES | undefined)?.multipartOptions?.limits?.files;
  return typeof files === 'number' ? files : MAX_FILES;
}

/**
 * A 4xx raised while reading a body; `http/errors.ts` maps it by status like Fastify's own. The message of a
 * 400 is shown to the client.
 */
export class BodyError extends Error {
  constructor(
    readonly statusCode: 400 | 413 | 415,
    message: string,
  ) {
    super(message);
    this.name = 'BodyError';
  }
}

/**
 * JSON through Fastify's own parser (prototype-poisoning keys removed), except that an empty body is no
 * parameters, as an empty form is: clients send `Content-Type: application/json` with nothing on a logout.
 */
function registerJsonParser(app: FastifyInstance, limits: BodyLimits): void {
  const parseJson = app.getDefaultJsonParser('remove', 'remove');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'string', bodyLimit: limits.bodyLimitBytes },
    (request, body, done) => {
      if (body === '') {
        done(null, {});
        return;
      }
      void parseJson(request, body as string, done);
    },
  );
}

/** Form bodies through the PHP-style parser, refusing (not silently truncating) too many parameters. */
function registerFormParser(app: FastifyInstance, limits: BodyLimits): void {
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: limits.bodyLimitBytes },
    (_request, body, done) => {
      const text = body as string;
      let parameters = 1;
      for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 38 /* & */) parameters++;
      if (parameters > (QS_OPTIONS.parameterLimit ?? 1000)) {
        done(new BodyError(413, 'Too many parameters'));
        return;
      }
      done(null, parsePhpStyle(text));
    },
  );
}

/** Requests whose multipart body was cut off for crossing its ceiling while streaming. */
const overCeiling = new WeakSet<IncomingMessage>();

/** True when the request's body was refused for size while it streamed in: its error is then a 413. */
export function streamedPastCeiling(request: FastifyRequest): boolean {
  return overCeiling.has(request.raw);
}

/**
 * Counts a multipart body's bytes as they arrive and stops reading the moment the total crosses the ceiling,
 * whether or not the client declared a length (a chunked body declares none). The multipart parser reads the
 * raw request itself, so the count hooks in ahead of it: the first `data` listener added is preceded by ours.
 * Crossing the ceiling unpipes the parser, pauses the request and errors it; the parser gives up, the answer
 * is a 413 (see `http/errors.ts`) and the connection is closed after it.
 */
function capStreamedBytes(raw: IncomingMessage, ceiling: number): void {
  let received = 0;
  const count = (chunk: Buffer) => {
    received += chunk.length;
    if (received <= ceiling) return;
    raw.off('data', count);
    overCeiling.add(raw);
    raw.unpipe();
    raw.pause();
    raw.emit('error', new BodyError(413, 'Body over the multipart limit'));
  };
  const watch = (event: string | symbol) => {
    if (event !== 'data') return;
    raw.off('newListener', watch);
    raw.prependListener('data', count);
  };
  raw.on('newListener', watch);
}

/**
 * Multipart: files buffered up to FILE_SIZE_LIMIT each (an oversized one is a 422 on its field), text fields
 * together held to BODY_LIMIT like any other body, and the whole body, every part together, held to
 * BODY_LIMIT + files × FILE_SIZE_LIMIT (plus part headers) while it streams. A declared length beyond that
 * is refused before a byte is read.
 */
async function registerMultipart(app: FastifyInstance, limits: BodyLimits): Promise<void> {
  app.addHook('onRequest', (request, _reply, done) => {
    if (!request.headers['content-type']?.startsWith('multipart/')) return done();
    const files = filesAllowed(request.routeOptions.config);
    const ceiling = limits.bodyLimitBytes + files * (limits.fileSizeLimitBytes + 64 * 1024);
    if (Number(request.headers['content-length'] ?? 0) > ceiling) {
      return done(new BodyError(413, 'Body over the multipart limit'));
    }
    capStreamedBytes(request.raw, ceiling);
    done();
  });
  await app.register(multipart, {
    attachFieldsToBody: true,
    throwFileSizeLimit: false,
    limits: {
      fileSize: limits.fileSizeLimitBytes,
      files: MAX_FILES,
      fields: 100,
      parts: 100 + MAX_FILES,
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
      // This part is also the body's entry for its field (attachFieldsToBody): multipartToObject reads the
      // upload from it there.
      const bodyPart: MultipartPart = part;
      bodyPart.upload = upload;
    },
  });
  app.addHook('preValidation', (request, _reply, done) => {
    if (!request.isMultipart() || !request.body || typeof request.body !== 'object') return done();
    const parts = Object.values(request.body as Record<string, MultipartPart | MultipartPart[]>).flat();
    let textBytes = 0;
    for (const part of parts) {
      if (part.type !== 'field') continue;
      if (part.valueTruncated) return done(new BodyError(413, 'A field is over the body limit'));
      textBytes += typeof part.value === 'string' ? Buffer.byteLength(part.value) : 0;
    }
    if (textBytes > limits.bodyLimitBytes) return done(new BodyError(413, 'Fields over the body limit'));
    request.body = multipartToObject(request.body as Record<string, MultipartPart | MultipartPart[]>);
    done();
  });
}

export async function registerBodyParsers(app: FastifyInstance, limits: BodyLimits): Promise<void> {
  // Plain text carries no parameters: a 415 says so, where silently ignoring it would answer "field required".
  app.removeContentTypeParser('text/plain');
  // Compressed bodies are not decoded: refuse them rather than read compressed bytes as a form.
  // Callback hooks below, not async ones: they run on every request, and a promise per hook is measurable.
  app.addHook('onRequest', (request, _reply, done) => {
    const encoding = request.headers['content-encoding'];
    if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
      return done(new BodyError(415, 'Content-Encoding is not supported'));
    }
    done();
  });
  registerFormParser(app, limits);
  registerJsonParser(app, limits);
  await registerMultipart(app, limits);
  // A JSON body carries named parameters: `[…]`, `"text"`, `5` or `null` is a malformed request, not an empty one.
  // No body at all (a GET that names a JSON type out of habit) is no parameters.
  app.addHook('preValidation', (request, _reply, done) => {
    const type = request.headers['content-type'];
    if (type === undefined || !/^application\/json\b/i.test(type)) return done();
    const body = request.body;
    if (body !== undefined && (body === null || typeof body !== 'object' || Array.isArray(body))) {
      return done(new BodyError(400, 'The JSON body must be an object.'));
    }
    done();
  });
}
