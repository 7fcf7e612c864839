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
  // One histogram child per (method, route, status), looked up once. Bounded: routes and methods are fixed,
  // statuses few. The request counter is read from the histogram's counts (metrics.ts).
  const series = new Map<string, { observe(seconds: number): void }>();
  const seriesOf = (method: string, route: string, status: string) => {
    const key = `${method} ${status} ${route}`;
    let found = series.get(key);
    if (!found) {
      found = metrics.httpDuration.labels({ method, route, status });
      series.set(key, found);
    }
    return found;
  };
  app.addHook('onResponse', (request, reply, done) => {
    // routeOptions.url is the template of the matched route; the not-found handler has none.
    const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
    const method = METHODS.has(request.method) ? request.method : 'OTHER';
    seriesOf(method, route, String(reply.statusCode)).observe(reply.elapsedTime / 1000);
    done();
  });
}
