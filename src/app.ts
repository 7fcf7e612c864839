import type { FastifyInstance } from 'fastify';
import type { DestinationStream } from 'pino';
import type { DataExportJobs } from './account/data-export/jobs.js';
import type { DueDeletions } from './account/deletion/sweep.js';
import type { GuardianIdentityCheck } from './account/guardian/identity.js';
import type { GuardianDeadline } from './account/guardian/sweep.js';
import { registerAdmin } from './app/admin.js';
import { registerApi } from './app/api.js';
import { type BackgroundIdle, startBackgroundJobs } from './app/background-jobs.js';
import { registerInfrastructure } from './app/infrastructure.js';
import { createInstance } from './app/instance.js';
import type { Config } from './config.js';
import type { DatabaseHandle } from './db/client.js';
import { buildEndpoints } from './endpoints.js';
import type { Mailer } from './mail/mailer.js';
import { MailSummaries } from './mail/summaries.js';
import type { AppMetrics } from './metrics/metrics.js';
import type { StartedTracing } from './metrics/start-tracing.js';
import type { ImageRenderer } from './modules/images/process.js';
import type { WebhookDelivery } from './modules/webhooks/delivery.js';
import type { DeliveryWake } from './modules/webhooks/delivery-loop.js';
import type { Infrastructure } from './services/infrastructure.js';
import { mediaOrigin } from './web/media-origin.js';
import { registerWeb } from './web/plugin.js';

/** The parts of one instance that its callers use beside HTTP: tests wait on them or run their passes. */
export interface AppParts {
  /** What the services are built on (services/infrastructure.ts): tests build services of their own on it. */
  infrastructure: Infrastructure;
  /** The mail outbox's sender: wait for sends (`idle`) or run a retry pass (`retryDue`). */
  mailer: Mailer;
  /** The data-export builder: wait for builds (`idle`) or run a pass (`buildDue`, `expireDue`). */
  dataExports: DataExportJobs;
  /** Erases the accounts whose deletion is due: run periodically, and by tests on demand. */
  dueDeletions: DueDeletions;
  /** Erases the children whose guardian did not consent in time: run periodically, and by tests on demand. */
  guardianDeadline: GuardianDeadline;
  /** The per-address mail cap's summaries: run a pass (`summarizeDue`). */
  mailSummaries: MailSummaries;
  /** The instance's own image renderer processes (`runningPids`, `renderedPids`). */
  imageRenderer: ImageRenderer;
  /** Resolves when no background pass (periodic jobs, export builds) is under way. */
  backgroundIdle: BackgroundIdle;
  /** The account events' delivery: run a pass (`dispatch`, `deliver`, `maintain`). */
  webhookDelivery: WebhookDelivery;
  /** Wakes the delivery loop (when WEBHOOK_POLL_INTERVAL runs one) after a commit that wrote events. */
  deliveryWake: DeliveryWake;
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
  /** How a child's guardian proves who they are; unset, the mailed link alone (docs/identity.md). */
  guardianIdentity?: GuardianIdentityCheck;
  /** The server's tracing (metrics/start-tracing.ts): its request spans' plugin and the seam; off when absent. */
  tracing?: StartedTracing;
  /** The staff console's clock (sessions, lockouts): Date.now unless a test hands in one it moves. */
  now?: () => number;
}

/**
 * The whole HTTP service as a Fastify instance, not yet listening: `server.ts` listens, tests call
 * `app.inject`. The database handle is the caller's to open and close.
 */
export async function buildApp(config: Config, deps: AppDeps): Promise<FastifyInstance> {
  return (await buildAppWithParts(config, deps)).app;
}

/**
 * buildApp, and the parts of the instance its caller may use beside HTTP (tests do). The instance is put
 * together from its plugins, in order (src/app/): the infrastructure every request and service needs, the
 * services and endpoints built on it, the background jobs, the API's routes, and the web pages. Each plugin
 * is a plain function on the root instance that returns what the next ones need: `app.register` would fence
 * each plugin's hooks, parsers and error handler off from the others' routes (short of `fastify-plugin`, not
 * a dependency), and could hand its parts on only as decorations.
 */
export async function buildAppWithParts(config: Config, deps: AppDeps): Promise<BuiltApp> {
  const tracing = deps.tracing?.tracing;
  const app = createInstance(config, deps.logStream, tracing);
  // First, before any hook or route: it wraps those registered after it (a `request` span per request).
  if (deps.tracing?.fastifyPlugin) await app.register(deps.tracing.fastifyPlugin);
  const { infrastructure, imageRenderer } = await registerInfrastructure(app, config, { ...deps, tracing });
  const built = buildEndpoints(config, infrastructure);
  const mailSummaries = new MailSummaries(deps.database.db, infrastructure.mailer);
  const backgroundIdle = startBackgroundJobs(app, config, {
    ...built,
    storage: infrastructure.storage,
    mailSummaries,
  });
  await registerApi(app, config, { ...built, database: deps.database });
  // The second app on the same root: the admin API (/admin/v1) and its own /admin/openapi.json.
  registerAdmin(app, config, built.admin);
  // The web pages at `/` and the API docs at `/docs`; they call the first configured API version.
  await registerWeb(app, built.webSessions, built.legalDocuments, {
    apiVersion: config.apiVersions[0] ?? 'v1',
    mediaOrigin: mediaOrigin(config.media),
    docs: config.docsEnabled,
    deletionGraceDays: config.deletion.graceDays,
    ageGate: config.guardian.ageGate === 'birth_date',
    portOne: config.identity.portone ? { browserOrigins: config.identity.portone.browserOrigins } : undefined,
    phone: config.sms.solapi !== undefined || config.sms.logCodes,
  });
  return {
    app,
    parts: {
      infrastructure,
      mailer: infrastructure.mailer,
      dataExports: built.dataExportJobs,
      dueDeletions: built.dueDeletions,
      guardianDeadline: built.guardianDeadline,
      mailSummaries,
      imageRenderer,
      backgroundIdle,
      webhookDelivery: built.webhookDelivery,
      deliveryWake: built.deliveryWake,
    },
  };
}
