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

/** How long a rejected connection's last answer may take to flush before its socket is destroyed anyway. */
const FLUSH_GRACE_MS = 1000;

/** The status line and envelope for an error Node's HTTP layer raises on a connection. */
function connectionErrorResponse(code: string | undefined): { status: number; reason: string; body: string } {
  if (code === 'HPE_HEADER_OVERFLOW') {
    const reason = 'Request Header Fields Too Large';
    return {
      status: 431,
      reason,
      body: JSON.stringify(failure(431, 'RequestHeaderFieldsTooLargeHttpException', reason)),
    };
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    const reason = 'Request Timeout';
    return { status: 408, reason, body: JSON.stringify(failure(408, 'RequestTimeoutHttpException', reason)) };
  }
  return {
    status: 400,
    reason: 'Bad Request',
    body: JSON.stringify(failure(400, 'BadRequestHttpException', 'Bad Request')),
  };
}

/** Errors of a client that went away: nothing to answer and nothing wrong on our side. */
const DISCONNECTS = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

/**
 * Requests Node's HTTP parser rejects (headers too large, a malformed request line) and requests that took
 * longer than REQUEST_TIMEOUT_MS / HEADERS_TIMEOUT_MS never reach Fastify: the connection gets the envelope,
 * when nothing was written on it yet, and is then destroyed. Destroyed, not half-closed with `end()`: a
 * half-closed socket waits for the client's FIN, and a hostile client never sends it, so every such socket
 * would keep its file handle (FIN-WAIT-2) until the process runs out of them.
 */
export function clientErrorHandler(
  this: { log?: { debug(details: object, message: string): void } } | undefined,
  error: Error & { code?: string },
  socket: Socket,
): void {
  if (error.code !== undefined && DISCONNECTS.has(error.code)) {
    this?.log?.debug({ code: error.code }, 'client disconnected');
    socket.destroy();
    return;
  }
  // A response already under way (a request that timed out while its answer was being written) cannot get a
  // second status line: the socket is only closed.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (!socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  this?.log?.debug({ code: error.code }, 'connection refused by the HTTP parser or a timeout');
  const { status, reason, body } = connectionErrorResponse(error.code);
  const destroy = () => socket.destroy();
  setTimeout(destroy, FLUSH_GRACE_MS).unref();
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
    destroy,
  );
}
