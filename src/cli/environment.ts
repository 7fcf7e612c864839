import { type Config, loadConfig } from '../config.js';
import type { OperatorServices } from './context.js';
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
}

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
 * and everything below them.
 */
export function processEnvironment(): CommandEnvironment {
  const terminal: Terminal = {
    writeOut: (text) => process.stdout.write(text),
    writeErr: (text) => process.stderr.write(text),
  };
  const config = configOnce(process.env);
  return {
    terminal,
    config,
    withServices: async (work) => {
      const context = await import('./context.js');
      return context.withOperatorServices(config(), terminal, work);
    },
  };
}
