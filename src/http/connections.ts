import type { IncomingMessage, ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { HttpConfig } from '../config/http.js';
import { sendRefusal } from './errors.js';

/**
 * How often Node checks its connections against the request and headers timeouts. Its default (30 s) would
 * let a timeout fire up to 30 s late; a quarter of the headers timeout keeps the overshoot small.
 */
function checkingInterval(http: HttpConfig): number {
  return Math.max(25, Math.min(1000, Math.floor(http.headersTimeoutMs / 4)));
}

/** How long a connection closed under an unread body still has its incoming bytes read and dropped. */
const LINGER_MS = 2_000;

/**
 * Closes a connection whose request body is still arriving the way nginx's lingering close does: the answer
 * is flushed, our side is shut (FIN), and what the client still sends is read and dropped for a moment
 * before the socket is destroyed. Destroying at once would make the kernel answer the unread bytes with a
 * reset, which can discard our answer before the client reads it; never destroying would let the client
 * hold the socket. Node closes a `Connection: close` response with `destroySoon()`; this replaces it for
 * this one socket.
 */
function lingerBeforeClosing(request: IncomingMessage): void {
  const socket = request.socket;
  socket.destroySoon = function lingeringClose(this: Socket) {
    request.unpipe();
    request.on('data', () => {});
    request.resume();
    this.end();
    setTimeout(() => this.destroy(), LINGER_MS).unref();
  };
}

/** The server options that bound how long a client may hold a connection (see config/http.ts). */
export function connectionOptions(http: HttpConfig): {
  requestTimeout: number;
  keepAliveTimeout: number;
  http: ServerOptions;
} {
  return {
    requestTimeout: http.requestTimeoutMs,
    keepAliveTimeout: http.keepAliveTimeoutMs,
    http: {
      requestTimeout: http.requestTimeoutMs,
      headersTimeout: http.headersTimeoutMs,
      keepAliveTimeout: http.keepAliveTimeoutMs,
      connectionsCheckingInterval: checkingInterval(http),
      // Node answers a request without Host with a bare 400 of its own; the hook below answers the envelope.
      requireHostHeader: false,
    },
  };
}

/**
 * Transport hygiene of every response: HTTP/1.1 without `Host` is the 400 envelope (RFC 9112 §3.2), and
 * nothing the API answers is stored by a cache (`no-store`): responses carry tokens and personal data, and a
 * shared cache or the device's disk keeping one would leak it. Only the `/media` files, which set their own
 * long `Cache-Control`, are cacheable.
 */
export function registerTransportHygiene(app: FastifyInstance): void {
  // Callback hooks, not async ones: they run on every request, and a promise per hook is measurable there.
  app.addHook('onRequest', (request, reply, done) => {
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
      sendRefusal(
        reply.header('connection', 'close').type('application/json; charset=utf-8'),
        'host_missing',
      );
      return;
    }
    done();
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    // Answered before its body was read (a 429 counted on the headers, a 413 on the size): the connection is
    // closed after the answer, not kept alive with the rest of the body still unread.
    if (request.raw.complete === false) {
      reply.header('connection', 'close');
      lingerBeforeClosing(request.raw);
    }
    done(null, payload);
  });
}
