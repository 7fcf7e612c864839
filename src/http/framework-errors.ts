import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_CATALOGUE, type ErrorCode } from './error-catalogue.js';
import { envelopeFor, sendRefusal } from './errors.js';

/**
 * Errors Fastify's router raises before any hook runs (a malformed URL escape, say): the same envelope as
 * everything else, never Fastify's own `{error, code, message}` body.
 */
export function frameworkErrorHandler(
  _error: FastifyError,
  _request: FastifyRequest,
  reply: FastifyReply,
): void {
  void sendRefusal(reply.type('application/json; charset=utf-8'), 'url_unparsable');
}

/** How long a rejected connection's last answer may take to flush before its socket is destroyed anyway. */
const FLUSH_GRACE_MS = 1000;

/** Node's errors on a connection, by the catalogue entry that answers them; any other is a bad request. */
const CONNECTION_CODES: Readonly<Record<string, ErrorCode>> = {
  HPE_HEADER_OVERFLOW: 'header_fields_too_large',
  ERR_HTTP_REQUEST_TIMEOUT: 'request_timeout',
};

/** The status line and envelope for an error Node's HTTP layer raises on a connection. */
function connectionErrorResponse(code: string | undefined): { status: number; reason: string; body: string } {
  const refusal = (code !== undefined && CONNECTION_CODES[code]) || 'bad_request';
  const { status } = ERROR_CATALOGUE[refusal];
  return {
    status,
    reason: STATUS_CODES[status] ?? 'Bad Request',
    body: JSON.stringify(envelopeFor(refusal)),
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
