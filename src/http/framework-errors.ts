import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { failure } from './envelope.js';

/**
 * Errors Fastify's router raises before any hook runs (a malformed URL escape, say): the same envelope as
 * everything else, never Fastify's own `{error, code, message}` body.
 */
export function frameworkErrorHandler(
  _error: FastifyError,
  _request: FastifyRequest,
  reply: FastifyReply,
): void {
  void reply
    .code(400)
    .type('application/json; charset=utf-8')
    .send(failure(400, 'BadRequestHttpException', 'Bad Request', { url: ['The URL could not be parsed.'] }));
}

/**
 * Requests Node's HTTP parser rejects (headers too large, a malformed Content-Length) never reach Fastify; the
 * connection gets this envelope and is closed.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const status = tooLarge ? 431 : 400;
  const body = JSON.stringify(
    tooLarge
      ? failure(431, 'RequestHeaderFieldsTooLargeHttpException', 'Request Header Fields Too Large')
      : failure(400, 'BadRequestHttpException', 'Bad Request'),
  );
  const reason = tooLarge ? 'Request Header Fields Too Large' : 'Bad Request';
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
