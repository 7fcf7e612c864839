import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { buildAppWithParts } from './app.js';
import { MAKE_SECRETS_KEY } from './config/second-factor.js';
import type { Config } from './config.js';
import type { DatabaseHandle } from './db/client.js';
import { migrate } from './db/migrate.js';
import { openConfiguredDatabase } from './db/open-configured.js';
import { secretsKeyNotice, withSecretsKey } from './db/secrets-key-file.js';
import { hugePagesWarning } from './lib/huge-pages.js';
import { useAmbientTracing } from './lib/tracing.js';
import { listenMetrics, type MetricsServer } from './metrics/exposition.js';
import { AppMetrics } from './metrics/metrics.js';
import { startTracing } from './metrics/start-tracing.js';
import type { PushLogger } from './push/transport.js';
import type { Infrastructure } from './services/infrastructure.js';
import { databaseStartupError } from './startup-errors.js';

// Kept here too: callers open the service's database from where they start the service.
export { openConfiguredDatabase };

export interface RunningServer {
  app: FastifyInstance;
  address: string;
  close(): Promise<void>;
}

/** What runs beside the HTTP service on its database (the operator commands' socket). */
export interface ServerCompanion {
  /** Called first when the server closes, with the drain's bound. */
  close(timeoutMs: number): Promise<void>;
}

/** What a companion is started with: the server's configuration (its SECRETS_KEY read), database and pools. */
export interface ServerParts {
  config: Config;
  database: DatabaseHandle;
  infrastructure: Infrastructure;
  log: PushLogger;
}

export interface StartOptions {
  /** Started once the app is built, before the address is logged: it is ready when the log says so. */
  companion?: (parts: ServerParts) => Promise<ServerCompanion | undefined>;
}

/** Migrates, turning a database that cannot be reached or entered into one line naming DATABASE_URL. */
async function migrateOnStart(database: DatabaseHandle): Promise<string[]> {
  try {
    return await migrate(database);
  } catch (error) {
    throw databaseStartupError(error, true) ?? error;
  }
}

/** The address the socket is bound to (`http://0.0.0.0:8080` with HOST=0.0.0.0), not a guess at one. */
function boundAddress(app: FastifyInstance): string {
  const { address, port } = app.server.address() as AddressInfo;
  return `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
}

/** Listens without Fastify's own "Server listening at" lines (one per interface): start-up logs one line. */
async function listenQuietly(app: FastifyInstance, config: Config): Promise<string> {
  const level = app.log.level;
  if (!['fatal', 'error', 'warn', 'silent'].includes(level)) app.log.level = 'warn';
  try {
    await app.listen({ port: config.port, host: config.host });
  } finally {
    app.log.level = level;
  }
  return boundAddress(app);
}

/** Says where SECRETS_KEY came from when it matters: a key just made, or none at all. */
function logSecretsKey(app: FastifyInstance, config: Config, generated: string | undefined): void {
  if (generated !== undefined) app.log.warn({ file: generated }, secretsKeyNotice(generated));
  else if (config.secondFactor.secretsKey === undefined) {
    app.log.warn(`SECRETS_KEY is not set: two-step verification and webhooks are off (${MAKE_SECRETS_KEY})`);
  }
}

/** Opens the database, migrates it (unless told not to), and listens (and /metrics on METRICS_PORT). */
export async function startServer(givenConfig: Config, options: StartOptions = {}): Promise<RunningServer> {
  // Before anything that makes spans: the database's statements are traced from the first.
  const tracing = await startTracing(givenConfig.tracing);
  useAmbientTracing(tracing.tracing);
  let database: DatabaseHandle;
  try {
    database = await openConfiguredDatabase(givenConfig, { withReplicas: true, tracing: tracing.tracing });
  } catch (error) {
    await tracing.close();
    throw error;
  }
  let app: FastifyInstance | undefined;
  let metricsServer: MetricsServer | undefined;
  let companion: ServerCompanion | undefined;
  try {
    // DATA_DIR is checked and owner-only now: an unset SECRETS_KEY of the embedded database is read or made.
    const { config, generated } = await withSecretsKey(givenConfig);
    const applied = config.migrateOnStart ? await migrateOnStart(database) : undefined;
    const metrics = new AppMetrics();
    const built = await buildAppWithParts(config, { database, metrics, tracing });
    app = built.app;
    logSecretsKey(app, config, generated);
    if (applied === undefined) app.log.info('migrations not run at start (MIGRATE_ON_START=false)');
    else if (applied.length === 0)
      app.log.info({ applied }, 'database schema up to date: no migration applied');
    else app.log.info({ applied }, `applied migrations: ${applied.join(', ')}`);
    const address = await listenQuietly(app, config);
    companion = await options.companion?.({
      config,
      database,
      infrastructure: built.parts.infrastructure,
      log: app.log,
    });
    const { port: metricsPort } = config.metrics;
    if (metricsPort !== undefined) {
      metricsServer = await listenMetrics(metrics, { ...config.metrics, port: metricsPort }, config.host);
      app.log.info(
        { address: metricsServer.address },
        `metrics listening on ${metricsServer.address}/metrics`,
      );
    }
    app.log.info(
      { address, database: database.kind, versions: config.apiVersions, dataDir: config.dataDir },
      `accounts listening on ${address}`,
    );
    const hugePages = hugePagesWarning();
    if (hugePages !== undefined) app.log.warn(hugePages);
    const running = app;
    const scrapes = metricsServer;
    const beside = companion;
    let closing: Promise<void> | undefined;
    return {
      app: running,
      address,
      close: () => {
        // Stop taking commands and accepting requests, let those under way finish (new requests get 503),
        // then release the database.
        closing ??= Promise.resolve(beside?.close(config.shutdownTimeoutMs))
          .finally(() => running.close())
          .finally(() => scrapes?.close())
          .finally(() => database.close())
          // Last: the spans of the drain and the close are exported too.
          .finally(() => tracing.close());
        return closing;
      },
    };
  } catch (error) {
    await companion?.close(0);
    await app?.close();
    await database.close();
    await tracing.close();
    throw error;
  }
}

/** After the drain bound, how long closing the database may still take before the process gives up. */
const FINAL_CLOSE_MS = 5_000;

/**
 * SIGTERM and SIGINT drain in-flight requests and exit 0. The drain is bounded by the shutdown timeout: past
 * it every connection still open (a slow client trickling its headers or body, a hung request) is destroyed,
 * so one slow client cannot turn a deploy into a timeout and an exit 1. Only a database that will not close
 * within a few more seconds makes the exit 1.
 */
export function closeOnSignals(server: RunningServer, timeoutMs: number): void {
  const shutdown = (signal: string) => {
    server.app.log.info({ signal }, 'shutting down');
    const drainTimer = setTimeout(() => {
      server.app.log.warn('shutdown drain timed out; closing the connections still open');
      server.app.server.closeAllConnections();
    }, timeoutMs);
    drainTimer.unref();
    const hardTimer = setTimeout(() => {
      server.app.log.error('shutdown timed out; exiting');
      process.exit(1);
    }, timeoutMs + FINAL_CLOSE_MS);
    hardTimer.unref();
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        server.app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}
