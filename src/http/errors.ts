import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isConnectionError } from '../db/errors.js';
import { streamedPastCeiling } from './body-parsers.js';
import { type ErrorEnvelope, failure } from './envelope.js';
import { type CatalogueEntry, ERROR_CATALOGUE, type ErrorCode } from './error-catalogue.js';

/** busboy's words for a multipart body it cannot read (no boundary, broken part headers, cut short). */
const MALFORMED_MULTIPART =
  /^(Multipart: Boundary not found|Malformed part header|Unexpected end of (form|multipart data)|Part terminated early)/;

/** The 4xx statuses Fastify and its parsers raise before a handler runs, by what they mean. */
const FRAMEWORK_CODES: Readonly<Record<number, ErrorCode>> = {
  400: 'body_unparsable',
  404: 'not_found',
  405: 'method_not_allowed',
  408: 'request_timeout',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
};

/**
 * The catalogue code of whatever was thrown: a service's error names its own; a lost connection to the
 * database is the 503; a framework's 4xx by its status (any other 4xx a library raises is a body that does
 * not parse: the contract's statuses only, never a library's wording); anything else is a fault.
 */
export function errorCode(error: unknown): ErrorCode {
  const { code, message, statusCode } = (error ?? {}) as Partial<FastifyError>;
  // A service error's code is a catalogue key; a library's codes (FST_…, SQLSTATEs, ECONN…) never are.
  if (typeof code === 'string' && Object.hasOwn(ERROR_CATALOGUE, code)) return code as ErrorCode;
  if (isConnectionError(error)) return 'service_unavailable';
  if (typeof message === 'string' && MALFORMED_MULTIPART.test(message)) return 'body_unparsable';
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    return FRAMEWORK_CODES[statusCode] ?? 'body_unparsable';
  }
  return 'internal_error';
}

/** `data` of an entry: `status` first when it has a reason, then its details; `[]` when it has neither. */
function dataOf(entry: CatalogueEntry, error: unknown, request: FastifyRequest | undefined): unknown {
  if (entry.reason === undefined) return entry.details ? entry.details(error, request) : [];
  return entry.details
    ? { status: entry.reason, ...entry.details(error, request) }
    : { status: entry.reason };
}

/** The envelope of a catalogue entry; `error` and `request` for the entries whose details read them. */
export function envelopeFor(code: ErrorCode, error?: unknown, request?: FastifyRequest): ErrorEnvelope {
  const entry = ERROR_CATALOGUE[code];
  return failure(entry.status, entry.type, entry.message, dataOf(entry, error, request));
}

/** Answers a request with a catalogue entry that needs no error (an unknown route, a missing file). */
export function sendRefusal(reply: FastifyReply, code: ErrorCode): FastifyReply {
  return reply.code(ERROR_CATALOGUE[code].status).send(envelopeFor(code));
}

/** The one place that turns an error into a status and an envelope. */
export function toErrorEnvelope(error: unknown, request: FastifyRequest): ErrorEnvelope {
  return envelopeFor(errorCode(error), error, request);
}

/**
 * The client went away mid-request (closed or reset its connection while its body was being read): nothing
 * failed on our side, and no answer can reach it. Told apart from a database connection reset by Node's
 * own `aborted` error and by the request's socket being gone.
 */
function clientDisconnected(error: unknown, request: FastifyRequest): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code === 'ECONNRESET' && message === 'aborted') return true;
  // (`raw.destroyed` is no sign: a request is destroyed once its body has been read in full.)
  return request.raw.socket?.destroyed === true;
}

export function sendError(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (clientDisconnected(error, request)) {
    // Debug, never error: a client can disconnect at will, and must not be able to raise alerts with it.
    request.log.debug({ code: (error as { code?: unknown } | undefined)?.code }, 'client disconnected');
    return sendRefusal(reply, 'bad_request');
  }
  // Whatever the multipart parser made of its cut-off stream, the cause is the size.
  const code = streamedPastCeiling(request) ? 'payload_too_large' : errorCode(error);
  const entry = ERROR_CATALOGUE[code];
  const envelope = failure(entry.status, entry.type, entry.message, dataOf(entry, error, request));
  if (entry.closeConnection) reply.header('connection', 'close');
  if (entry.log) request.log[entry.log.level](entry.log.fields(error, entry), entry.log.message);
  const retryAfter = entry.retryAfter?.(error);
  if (retryAfter !== undefined) reply.header('retry-after', String(retryAfter));
  return reply.code(entry.status).type('application/json; charset=utf-8').send(envelope);
}
