import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { MetricsConfig } from '../config.js';
import { sendRefusal } from '../http/errors.js';
import type { AppMetrics } from './metrics.js';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** True when no token is configured, or the request carries it as `Authorization: Bearer …`. */
function authorised(config: MetricsConfig, authorization: string | undefined): boolean {
  if (config.token === undefined) return true;
  const given = /^Bearer (.+)$/i.exec(authorization ?? '')?.[1] ?? '';
  // Compared as digests, in constant time: the length of the token leaks nothing either.
  return timingSafeEqual(digest(given), digest(config.token));
}

/** `/metrics` on the main app (when no METRICS_PORT is set). */
export function serveMetricsRoute(app: FastifyInstance, metrics: AppMetrics, config: MetricsConfig): void {
  app.get('/metrics', async (request, reply) => {
    if (!authorised(config, request.headers.authorization)) {
      return sendRefusal(reply.header('www-authenticate', 'Bearer'), 'metrics_unauthorized');
    }
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
}

export interface MetricsServer {
  address: string;
  close(): Promise<void>;
}

async function answer(metrics: AppMetrics, config: MetricsConfig, request: IncomingMessage) {
  const path = (request.url ?? '/').split('?')[0];
  if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
    return { status: 404, type: 'text/plain', body: 'Not Found\n' };
  }
  if (!authorised(config, request.headers.authorization)) {
    return { status: 401, type: 'text/plain', body: 'Unauthorized\n' };
  }
  return { status: 200, type: metrics.registry.contentType, body: await metrics.registry.metrics() };
}

/**
 * `/metrics` alone on METRICS_PORT: a plain node:http server, so nothing of the API is reachable there and the
 * port can stay inside the network boundary while the main port faces the load balancer.
 */
export async function listenMetrics(
  metrics: AppMetrics,
  config: MetricsConfig & { port: number },
  host: string,
): Promise<MetricsServer> {
  const server: Server = createServer((request, response) => {
    answer(metrics, config, request).then(
      ({ status, type, body }) => {
        response.writeHead(status, {
          'content-type': type,
          ...(status === 401 ? { 'www-authenticate': 'Bearer' } : {}),
        });
        response.end(request.method === 'HEAD' ? undefined : body);
      },
      () => {
        response.writeHead(500, { 'content-type': 'text/plain' });
        response.end('Internal Server Error\n');
      },
    );
  });
  // A scrape is short: an idle scraper connection must not hold shutdown up.
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { address, port } = server.address() as AddressInfo;
  return {
    address: `http://${address.includes(':') ? `[${address}]` : address}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
