import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { migrate } from './db/migrate.js';
import { openConfiguredDatabase } from './db/open-configured.js';

// Kept here too: callers open the service's database from where they start the service.
export { openConfiguredDatabase };

export interface RunningServer {
  app: FastifyInstance;
  address: string;
  close(): Promise<void>;
}

/** Opens the database, migrates it (unless told not to), and listens. */
export async function startServer(config: Config): Promise<RunningServer> {
  const database = await openConfiguredDatabase(config);
  try {
    if (config.migrateOnStart) await migrate(database);
    const app = await buildApp(config, { database });
    const address = await app.listen({ port: config.port, host: config.host });
    app.log.info(
      { database: database.kind, versions: config.apiVersions, dataDir: config.dataDir },
      `accounts listening on ${address}`,
    );
    let closing: Promise<void> | undefined;
    return {
      app,
      address,
      close: () => {
        // Stop accepting, let in-flight requests finish (new ones get 503), then release the database.
        closing ??= app.close().finally(() => database.close());
        return closing;
      },
    };
  } catch (error) {
    await database.close();
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
