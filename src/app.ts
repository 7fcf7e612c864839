import Fastify, { type FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { type DestinationStream, destination } from 'pino';
import type { DataExportJobs } from './account/data-export/jobs.js';
import { type DueDeletions, sweepDueDeletionsPeriodically } from './account/deletion/sweep.js';
import type { Config } from './config.js';
import type { DatabaseHandle } from './db/client.js';
import { loadMigrations } from './db/migrate.js';
import { buildEndpoints } from './endpoints.js';
import { NO_FILES, registerBodyParsers } from './http/body-parsers.js';
import { connectionOptions, registerTransportHygiene } from './http/connections.js';
import { allowCorsOrigins } from './http/cors.js';
import { limitBeforeBody } from './http/endpoint.js';
import { ok, successEnvelopeSchema } from './http/envelope.js';
import { clientErrorHandler, frameworkErrorHandler } from './http/framework-errors.js';
import { AccessLog, loggerOptions } from './http/logging.js';
import { openApiDocument } from './http/openapi.js';
import { parsePhpStyle } from './http/params.js';
import {
  closeConnectionsWhenClosing,
  registerFallbacks,
  registerHealth,
  requestId,
} from './http/server-setup.js';
import { HashingPool } from './lib/hashing-pool.js';
import type { PeriodicRun } from './lib/periodic.js';
import { openRateLimits } from './limits/open-rate-limits.js';
import { Mailer } from './mail/mailer.js';
import { OutboxRepo } from './mail/outbox-repo.js';
import { createMailTransport } from './mail/transport.js';
import { serveMetricsRoute } from './metrics/exposition.js';
import { AppMetrics } from './metrics/metrics.js';
import { recordRequests } from './metrics/request-metrics.js';
import {
  PRUNE_INTERVAL_MS,
  prunePeriodically as pruneKeysPeriodically,
} from './modules/idempotency/prune.js';
import { OrphanMediaSweeper, sweepPeriodically } from './modules/images/orphan-sweep.js';
import { ImageRenderer } from './modules/images/process.js';
import { prunePeriodically } from './modules/security-events/prune.js';
import { createStorage } from './storage/create-storage.js';
import { LocalStorage } from './storage/local-storage.js';
import { S3Storage } from './storage/s3-storage.js';
import { serveLocalMedia } from './storage/serve-local.js';
import { SERVICE_VERSION } from './version.js';
import { mediaOrigin } from './web/media-origin.js';
import { registerWeb } from './web/plugin.js';

/** The parts of one instance that its callers use beside HTTP: tests wait on them or run their passes. */
export interface AppParts {
  /** The mail outbox's sender: wait for sends (`idle`) or run a retry pass (`retryDue`). */
  mailer: Mailer;
  /** The data-export builder: wait for builds (`idle`) or run a pass (`buildDue`, `expireDue`). */
  dataExports: DataExportJobs;
  /** Erases the accounts whose deletion is due: run periodically, and by tests on demand. */
  dueDeletions: DueDeletions;
  /** The instance's own image renderer processes (`runningPids`, `renderedPids`). */
  imageRenderer: ImageRenderer;
  /** Resolves when no background pass (periodic jobs, export builds) is under way. */
  backgroundIdle(): Promise<void>;
}

/** An instance built by buildAppWithParts: the Fastify app and its parts. */
export interface BuiltApp {
  app: FastifyInstance;
  parts: AppParts;
}

export interface AppDeps {
  database: DatabaseHandle;
  /** The instance's metrics; made here when the caller does not need them (server.ts does: METRICS_PORT). */
  metrics?: AppMetrics;
  /** Where log lines go instead of stdout (tests read them). */
  logStream?: DestinationStream;
}

/** Lines are written in batches of about this many bytes (one write instead of one per request)… */
const LOG_BATCH_BYTES = 8192;
/** …or when the oldest buffered line is this old, whichever comes first. */
const LOG_FLUSH_MS = 100;

/**
 * Where log lines go: the caller's stream (tests), or stdout written asynchronously and in batches — a request
 * never waits for the pipe, and a busy service makes one write per few dozen lines instead of a system call
 * per request (docs/performance.md). A quiet one shows a line within LOG_FLUSH_MS; pino writes what is
 * buffered when the process exits. Nothing when logging is silent.
 */
function logDestination(level: Config['logLevel'], stream: DestinationStream | undefined) {
  if (stream !== undefined) return { stream };
  if (level === 'silent') return {};
  return {
    stream: destination({
      dest: 1,
      sync: false,
      minLength: LOG_BATCH_BYTES,
      periodicFlush: LOG_FLUSH_MS,
    }),
  };
}

/**
 * The whole HTTP service as a Fastify instance, not yet listening: `server.ts` listens, tests call
 * `app.inject`. The database handle is the caller's to open and close.
 */
export async function buildApp(config: Config, deps: AppDeps): Promise<FastifyInstance> {
  return (await buildAppWithParts(config, deps)).app;
}

/** buildApp, and the parts of the instance its caller may use beside HTTP (tests do). */
export async function buildAppWithParts(config: Config, deps: AppDeps): Promise<BuiltApp> {
  const app = Fastify({
    logger: {
      ...loggerOptions(config.logLevel, config.providers.names),
      ...logDestination(config.logLevel, deps.logStream),
    },
    // One access line per request instead of Fastify's two.
    logController: new AccessLog(),
    genReqId: requestId,
    bodyLimit: config.bodyLimitBytes,
    trustProxy: config.trustProxy,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    ...connectionOptions(config.http),
    // `__proto__` and `constructor.prototype` keys in JSON are dropped like any other unknown field.
    onProtoPoisoning: 'remove',
    onConstructorPoisoning: 'remove',
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
    routerOptions: {
      ignoreTrailingSlash: true,
      ignoreDuplicateSlashes: true,
      querystringParser: (query) => parsePhpStyle(query),
    },
  });
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
  for (const provider of config.providers.configured) {
    if (provider.kind === 'userinfo' && provider.clientIds.length === 0) {
      // Without a client-id check a token any other app obtained for the same person signs in here too.
      app.log.warn(
        { provider: provider.name },
        'identity provider has no PROVIDER_<NAME>_CLIENT_ID: tokens issued to other apps are accepted',
      );
    }
  }
  app.addHook('onClose', async () => limits.close());
  await limits.ready();
  // Mail goes out after commit and is retried from the outbox in the background.
  const mailer = new Mailer(
    new OutboxRepo(deps.database.db),
    createMailTransport(config.mail, app.log),
    config.mail.retry,
    config.mail.smtp?.timeoutMs ?? 0,
    app.log,
  );
  mailer.start();
  app.addHook('onClose', async () => mailer.close());
  const {
    endpoints,
    services,
    mediaReferences,
    webSessions,
    legalDocuments,
    registerDownloads,
    dataExportJobs,
    securityEvents,
    dueDeletions,
    idempotency,
  } = buildEndpoints(config, {
    ...deps,
    storage,
    limits,
    log: app.log,
    metrics,
    mailer,
    hashing,
    imageRenderer,
    // Files that could not be removed are orphans: logged with their keys so an operator can remove them.
    reportCleanupFailure: (keys, error) => app.log.error({ err: error, keys }, 'media cleanup failed'),
  });
  // Exports are built in the background: now and then (exports a crashed instance left, expiries), and
  // after each request; stopped, and awaited, before the database closes.
  app.addHook('onReady', async () => dataExportJobs.start());
  app.addHook('onClose', async () => dataExportJobs.close());
  registerDownloads(app);
  // Periodic jobs, each at start (once the app is ready) and then on its interval; stopped, and awaited,
  // before the database closes. `backgroundIdle` waits for the passes under way (tests; shutdown).
  const periodic: (() => PeriodicRun)[] = [];
  if (
    (storage instanceof LocalStorage || storage instanceof S3Storage) &&
    config.mediaSweepIntervalMinutes > 0
  ) {
    const sweeper = new OrphanMediaSweeper(storage, mediaReferences);
    periodic.push(() => sweepPeriodically(sweeper, config.mediaSweepIntervalMinutes * 60_000, app.log));
  }
  // Security events older than SECURITY_EVENTS_DAYS, by every instance.
  periodic.push(() => prunePeriodically(securityEvents, config.securityEvents.retentionDays, app.log));
  if (config.deletion.graceDays > 0) {
    periodic.push(() =>
      sweepDueDeletionsPeriodically(dueDeletions, config.deletion.sweepIntervalMs, app.log),
    );
  }
  // Idempotency-Key answers past their day.
  periodic.push(() => pruneKeysPeriodically(idempotency, PRUNE_INTERVAL_MS, app.log));
  let runs: PeriodicRun[] = [];
  app.addHook('onReady', async () => {
    runs = periodic.map((start) => start());
  });
  app.addHook('onClose', async () => {
    await Promise.all(runs.map((run) => run.stop()));
  });
  const backgroundIdle = async () => {
    await Promise.all([...runs.map((run) => run.idle()), dataExportJobs.idle()]);
  };
  // Ready means the database answers *and* carries every migration this build knows: an instance started
  // with MIGRATE_ON_START=false before `accounts migrate` ran stays out of the load balancer.
  const latestMigration = (await loadMigrations()).at(-1)?.version ?? '';
  registerHealth(app, async () => {
    const { rows } = await sql<{
      version: string | null;
    }>`SELECT max(version) AS version FROM schema_migrations`.execute(deps.database.db);
    const applied = rows[0]?.version ?? '';
    if (applied < latestMigration)
      throw new Error(`schema at ${applied || 'nothing'}, this build needs ${latestMigration}`);
  });
  // DOCS_ENABLED=false: a deployment that does not publish its API description answers 404 for both.
  if (config.docsEnabled) {
    const document = openApiDocument(endpoints, config.apiVersions, SERVICE_VERSION);
    app.get('/openapi.json', async () => document);
  }
  // The web pages at `/` and the API docs at `/docs`; they call the first configured API version.
  await registerWeb(app, webSessions, legalDocuments, {
    apiVersion: config.apiVersions[0] ?? 'v1',
    mediaOrigin: mediaOrigin(config.media),
    docs: config.docsEnabled,
    deletionGraceDays: config.deletion.graceDays,
  });

  for (const version of config.apiVersions) {
    for (const definition of endpoints) {
      const takesFiles = Object.values(definition.rules).some(
        (field) => field.spec.kind === 'file' || field.spec.kind === 'files',
      );
      const countLimit = limitBeforeBody(definition);
      const success = definition.successStatus ?? 200;
      app.route({
        method: definition.method,
        url: `/${version}${definition.path}`,
        ...(takesFiles ? {} : { config: NO_FILES }),
        ...(countLimit ? { onRequest: countLimit } : {}),
        // Serialized through the declared success schema: only its properties reach the client.
        schema: { response: { [success]: successEnvelopeSchema(definition.response, success) } },
        handler: async (request, reply) => {
          const data = await definition.run(request, services);
          if (success !== 200) reply.code(success);
          return ok(data, success);
        },
      });
    }
  }
  return {
    app,
    parts: { mailer, dataExports: dataExportJobs, dueDeletions, imageRenderer, backgroundIdle },
  };
}
