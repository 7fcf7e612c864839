import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { type DatabaseHandle, openDatabase } from './db/client.js';
import { secureDataDir } from './db/data-dir.js';
import { migrate } from './db/migrate.js';

/** Opens the configured database, DATA_DIR made owner-only first (it holds the embedded database and media). */
export async function openConfiguredDatabase(config: Config): Promise<DatabaseHandle> {
  await secureDataDir(config.dataDir);
  return openDatabase({
    url: config.databaseUrl,
    embeddedDir: path.join(config.dataDir, 'pglite'),
    poolMax: config.databasePoolMax,
  });
}

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

/** SIGTERM and SIGINT drain in-flight requests and exit; a drain that hangs is cut off after the timeout. */
export function closeOnSignals(server: RunningServer, timeoutMs: number): void {
  const shutdown = (signal: string) => {
    server.app.log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      server.app.log.error('shutdown timed out; exiting');
      process.exit(1);
    }, timeoutMs);
    timer.unref();
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
