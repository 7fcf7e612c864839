import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import FindMyWay from 'find-my-way';
import { ok } from './envelope.js';
import { sendError, sendRefusal } from './errors.js';

/** A client's own request id is kept only when it is short and plain, so it is safe to log and echo. */
export function requestId(request: { headers: Record<string, unknown> }): string {
  const incoming = request.headers['x-request-id'];
  return typeof incoming === 'string' && /^[A-Za-z0-9._-]{1,64}$/.test(incoming) ? incoming : randomUUID();
}

/**
 * Unknown routes are a 404 envelope; a known path with the wrong method is a 405 with `Allow`. Fastify's own
 * router answers 404 for both, so a second router remembers every path's methods.
 */
export function registerFallbacks(app: FastifyInstance): void {
  const known = FindMyWay({ ignoreTrailingSlash: true, ignoreDuplicateSlashes: true });
  app.addHook('onRoute', (route) => {
    // The catch-all OPTIONS route of CORS answers preflights; it must not make every path "known".
    if (route.url === '*' || route.url === '/*') return;
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
      return sendRefusal(reply.header('allow', allowed.join(', ')), 'method_not_allowed');
    }
    return sendRefusal(reply, 'not_found');
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
      return sendRefusal(reply, 'service_unavailable');
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
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
}
