import type { FastifyInstance } from 'fastify';
import type { GuardianIdentityCheck } from '../account/guardian/identity.js';
import { passkeysWarning } from '../config/webauthn.js';
import type { Config } from '../config.js';
import type { DatabaseHandle } from '../db/client.js';
import { registerBodyParsers } from '../http/body-parsers.js';
import { registerTransportHygiene } from '../http/connections.js';
import { allowCorsOrigins } from '../http/cors.js';
import { closeConnectionsWhenClosing, registerFallbacks } from '../http/server-setup.js';
import { HashingPool } from '../lib/hashing-pool.js';
import type { Tracing } from '../lib/tracing.js';
import { serveMetricsRoute } from '../metrics/exposition.js';
import { AppMetrics } from '../metrics/metrics.js';
import { recordRequests } from '../metrics/request-metrics.js';
import { ImageRenderer } from '../modules/images/process.js';
import { buildInfrastructure, type Infrastructure } from '../services/infrastructure.js';
import { LocalStorage } from '../storage/local-storage.js';
import { serveLocalMedia } from '../storage/serve-local.js';

/** What the infrastructure needs from its caller. */
export interface InfrastructureDeps {
  database: DatabaseHandle;
  /** The instance's metrics; made here when the caller does not need them (server.ts does: METRICS_PORT). */
  metrics?: AppMetrics | undefined;
  /** How a child's guardian proves who they are; unset, the configured way (services/guardian.ts). */
  guardianIdentity?: GuardianIdentityCheck | undefined;
  /** The server's tracing (metrics/start-tracing.ts); off when absent. */
  tracing?: Tracing | undefined;
  /** The staff console's clock (sessions' idle and absolute ends, lockouts); a test moves it. */
  now?: (() => number) | undefined;
}

/** The instance's infrastructure, each part closed with the instance: what the services are built on. */
export interface ServerInfrastructure {
  metrics: AppMetrics;
  imageRenderer: ImageRenderer;
  /** The adapters every entry point wires (services/infrastructure.ts), with this instance's pools. */
  infrastructure: Infrastructure;
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
 * parsers, the 404/405 fallbacks and the error handler), then the instance's pools and the infrastructure
 * the services are built on (storage, rate limits, mailer, push), each closed when the instance closes. The
 * pools start their workers on first use.
 */
export async function registerInfrastructure(
  app: FastifyInstance,
  config: Config,
  deps: InfrastructureDeps,
): Promise<ServerInfrastructure> {
  const metrics = await registerRequestHandling(app, config, deps);
  // Image decoding runs in its own bounded pool of processes, never beside password hashing.
  const imageRenderer = new ImageRenderer(config.imageRendering);
  app.addHook('onClose', async () => imageRenderer.close());
  // Password hashing in its own bounded pool of threads at a lower CPU priority than request handling.
  const hashing = new HashingPool({ ...config.hashing, tracing: deps.tracing });
  app.addHook('onClose', async () => hashing.close());
  warnAboutOpenProviders(app, config);
  const passkeys = passkeysWarning(config.webauthn);
  if (passkeys !== undefined) app.log.warn(passkeys);
  const infrastructure = await buildInfrastructure(config, {
    database: deps.database,
    role: 'server',
    log: app.log,
    metrics,
    // Files that could not be removed are orphans: logged with their keys so an operator can remove them.
    reportCleanupFailure: (keys, error) => app.log.error({ err: error, keys }, 'media cleanup failed'),
    imageRenderer,
    hashing,
    guardianIdentity: deps.guardianIdentity,
    tracing: deps.tracing,
    now: deps.now,
  });
  // Hooks close in the reverse order of their adding: the mailer, the limits and the storage first.
  app.addHook('onClose', async () => infrastructure.close());
  const { storage } = infrastructure;
  if (storage instanceof LocalStorage) serveLocalMedia(app, storage);
  return { metrics, imageRenderer, infrastructure };
}
