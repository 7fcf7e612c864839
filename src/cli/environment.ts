import path from 'node:path';
import { type Config, loadConfig } from '../config.js';
import type { HeldDataDir } from './command-client.js';
import type { OperatorServices } from './context.js';
import { osUserName } from './os-user.js';
import { HandedOver } from './output.js';
import type { Terminal } from './terminal.js';

/**
 * What the commands run with: their terminal, the configuration (from the environment) and the operator
 * services, opened per command. The `accounts` process uses `processEnvironment()`; a caller in the same
 * process (the test suite) hands in its own terminal, environment variables and services.
 */
export interface CommandEnvironment {
  readonly terminal: Terminal;
  /** The configuration, read from the environment variables when first asked for. */
  config(): Config;
  /** Runs `work` with the operator services on the configured database. */
  withServices<T>(work: (services: OperatorServices) => Promise<T>): Promise<T>;
  /** Where a file the command line names is: relative to the working directory of whoever ran it. */
  resolvePath(file: string): string;
  /** The operating-system user who ran the command: its access records' actor. */
  readonly osUser: string;
}

/** Runs a command line a running server is handed (run.ts): the operator commands alone, in the server. */
export type HandedCommandRunner = (argv: string[], environment: CommandEnvironment) => Promise<number>;

/** The configuration of `env`, parsed once. */
export function configOnce(env: NodeJS.ProcessEnv): () => Config {
  let config: Config | undefined;
  return () => {
    config ??= loadConfig(env);
    return config;
  };
}

/**
 * The `accounts` process's own environment. The services are loaded on the first command that needs them:
 * `--help`, `--version` and a mistyped argument answer without importing the services, the database drivers
 * and everything below them. When a running server holds the embedded database's DATA_DIR, the command line
 * (`argv`) is handed to that server, which runs it and sends its output back (command-client.ts).
 */
export function processEnvironment(argv: string[]): CommandEnvironment {
  const terminal: Terminal = {
    writeOut: (text) => process.stdout.write(text),
    writeErr: (text) => process.stderr.write(text),
  };
  const config = configOnce(process.env);
  return {
    terminal,
    config,
    withServices: async (work) => {
      const handOver = async (held: HeldDataDir) => {
        const { handToServer } = await import('./command-client.js');
        return new HandedOver(await handToServer(held, argv, terminal));
      };
      const { dataDir, databaseUrl } = config();
      if (databaseUrl === undefined) {
        // A live process holds the embedded database: handed over at once, without loading the services.
        const { embeddedLockPath, liveLockOwner } = await import('../db/data-dir-lock.js');
        const owner = await liveLockOwner(embeddedLockPath(dataDir));
        if (owner !== undefined) throw await handOver({ dataDir, owner });
      }
      const context = await import('./context.js');
      try {
        return await context.withOperatorServices(config(), terminal, work);
      } catch (error) {
        // A server that took DATA_DIR meanwhile.
        if (error instanceof context.DataDirHeldError) throw await handOver(error);
        throw error;
      }
    },
    resolvePath: (file) => path.resolve(file),
    osUser: osUserName(),
  };
}
