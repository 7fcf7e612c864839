import type { FastifyInstance } from 'fastify';
import { passkeysWarning } from '../config/webauthn.js';
import type { Config } from '../config.js';
import type { DatabaseHandle } from '../db/client.js';
import { registerBodyParsers } from '../http/body-parsers.js';
import { registerTransportHygiene } from '../http/connections.js';
import { allowCorsOrigins } from '../http/cors.js';
import { closeConnectionsWhenClosing, registerFallbacks } from '../http/server-setup.js';
import { HashingPool } from '../lib/hashing-pool.js';
import { openRateLimits } from '../limits/open-rate-limits.js';
import type { RateLimits } from '../limits/rate-counter.js';
import { AddressCap } from '../mail/address-cap.js';
import { Mailer } from '../mail/mailer.js';
import { OutboxRepo } from '../mail/outbox-repo.js';
import { createMailTransport } from '../mail/transport.js';
import { serveMetricsRoute } from '../metrics/exposition.js';
import { AppMetrics } from '../metrics/metrics.js';
import { recordRequests } from '../metrics/request-metrics.js';
import { ImageRenderer } from '../modules/images/process.js';
import { createStorage } from '../storage/create-storage.js';
import { LocalStorage } from '../storage/local-storage.js';
import type { MediaStorage } from '../storage/media-storage.js';
import { S3Storage } from '../storage/s3-storage.js';
import { serveLocalMedia } from '../storage/serve-local.js';

/** What the infrastructure needs from its caller. */
export interface InfrastructureDeps {
  database: DatabaseHandle;
  /** The instance's metrics; made here when the caller does not need them (server.ts does: METRICS_PORT). */
  metrics?: AppMetrics | undefined;
}

/** The instance's infrastructure, each part closed with the instance: what the services are built on. */
export interface Infrastructure {
  metrics: AppMetrics;
  imageRenderer: ImageRenderer;
  hashing: HashingPool;
  storage: MediaStorage;
  limits: RateLimits;
  mailer: Mailer;
}

/** Every request: its id echoed, its transport checked, counted, and answered 404/405 when no route matches. */
async function registerRequestHandling(
  app: FastifyInstance,
  config: Config,
  deps: InfrastructureDeps,
): Promise<AppMetrics> {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  registerTransportHygiene(app);
  const metrics = deps.metrics ?? new AppMetrics();
  metrics.watchPool(() => deps.database.poolStats());
  const { replicas } = deps.database;
  if (replicas) metrics.watchReplicas(() => replicas.statuses());
  recordRequests(app, metrics);
  if (config.metrics.port === undefined) serveMetricsRoute(app, metrics, config.metrics);
  registerFallbacks(app);
  await allowCorsOrigins(app, config.corsOrigins);
  closeConnectionsWhenClosing(app);
  await registerBodyParsers(app, config);
  return metrics;
}

/** Warns about configured identity providers that accept tokens any other app obtained. */
function warnAboutOpenProviders(app: FastifyInstance, config: Config): void {
  for (const provider of config.providers.configured) {
    if (provider.kind === 'userinfo' && provider.clientIds.length === 0) {
      // Without a client-id check a token any other app obtained for the same person signs in here too.
      app.log.warn(
        { provider: provider.name },
        'identity provider has no PROVIDER_<NAME>_CLIENT_ID: tokens issued to other apps are accepted',
      );
    }
  }
}

/**
 * The first plugin: the hooks every request passes (request id, transport hygiene, metrics, CORS, body
 * parsers, the 404/405 fallbacks and the error handler), then the instance's pools, storage, rate limits and
 * mailer, each closed when the instance closes. The pools start their workers on first use.
 */
export async function registerInfrastructure(
  app: FastifyInstance,
  config: Config,
  deps: InfrastructureDeps,
): Promise<Infrastructure> {
  const metrics = await registerRequestHandling(app, config, deps);
  // Image decoding runs in its own bounded pool of processes, never beside password hashing.
  const imageRenderer = new ImageRenderer(config.imageRendering);
  app.addHook('onClose', async () => imageRenderer.close());
  // Password hashing in its own bounded pool of threads at a lower CPU priority than request handling.
  const hashing = new HashingPool(config.hashing);
  app.addHook('onClose', async () => hashing.close());
  const storage = createStorage(config.media);
  if (storage instanceof LocalStorage) serveLocalMedia(app, storage);
  if (storage instanceof S3Storage) app.addHook('onClose', async () => storage.close());
  // Built once: every request of this instance shares the counters (and, with Redis, every instance does).
  const limits = openRateLimits(config.rateLimits, config.redisUrl, app.log, metrics.rateLimitObserver);
  warnAboutOpenProviders(app, config);
  const passkeys = passkeysWarning(config.webauthn);
  if (passkeys !== undefined) app.log.warn(passkeys);
  app.addHook('onClose', async () => limits.close());
  await limits.ready();
  // Mail goes out after commit and is retried from the outbox in the background.
  const mailer = new Mailer({
    outbox: new OutboxRepo(deps.database.db),
    transport: createMailTransport(config.mail, app.log),
    retry: config.mail.retry,
    sendTimeoutMs: config.mail.smtp?.timeoutMs ?? 0,
    logger: app.log,
    cap: new AddressCap({ address: limits.mailAddress, alerts: limits.mailAlerts }),
  });
  mailer.start();
  app.addHook('onClose', async () => mailer.close());
  return { metrics, imageRenderer, hashing, storage, limits, mailer };
}
