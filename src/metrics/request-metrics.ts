import type { FastifyInstance } from 'fastify';
import type { AppMetrics } from './metrics.js';

/** The label of requests no route matched (404s, 405s): their raw URL must never become a label. */
export const UNMATCHED_ROUTE = 'unmatched';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * Counts every answered request by method, route template (`/v1/user/:id`, never `/v1/user/0b1c…`) and
 * status, and times it. Unusual methods share one label so a client cannot mint new series.
 */
export function recordRequests(app: FastifyInstance, metrics: AppMetrics): void {
  app.addHook('onResponse', async (request, reply) => {
    // routeOptions.url is the template of the matched route; the not-found handler has none.
    const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
    const labels = {
      method: METHODS.has(request.method) ? request.method : 'OTHER',
      route,
      status: String(reply.statusCode),
    };
    metrics.httpRequests.inc(labels);
    metrics.httpDuration.observe(labels, reply.elapsedTime / 1000);
  });
}
