#!/usr/bin/env node
import { ConfigError, loadConfig } from './config.js';
import { migrate } from './db/migrate.js';
import { FAKE_PROVIDER_USAGE, runFakeProvider } from './dev/fake-provider-command.js';
import { closeOnSignals, openConfiguredDatabase, startServer } from './server.js';

const USAGE = `Usage: accounts <command>

Commands:
  serve     Start the HTTP service (migrates first unless MIGRATE_ON_START=false)
  migrate   Apply pending database migrations and exit
  dev fake-provider [--port 9400]
            Run a development identity provider on 127.0.0.1 and print the PROVIDER_* settings for it
  dev mailbox [--port 2525]
            Run a development SMTP sink on 127.0.0.1 that prints every mail it receives

Configuration comes from the environment; see the README.`;

async function main(argv: string[]): Promise<number> {
  const [command] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    console.log(USAGE);
    return command === undefined ? 1 : 0;
  }
  const config = loadConfig();
  switch (command) {
    case 'serve': {
      const server = await startServer(config);
      closeOnSignals(server, config.shutdownTimeoutMs);
      return -1;
    }
    case 'migrate': {
      const database = await openConfiguredDatabase(config);
      try {
        const applied = await migrate(database);
        console.log(applied.length === 0 ? 'Nothing to migrate.' : `Applied: ${applied.join(', ')}`);
      } finally {
        await database.close();
      }
      return 0;
    }
    case 'dev': {
      const [subcommand, ...rest] = argv.slice(1);
      // Loaded only when asked for: its SMTP server and mail parser would slow every other command's start.
      if (subcommand === 'mailbox') return (await import('./dev/mailbox.js')).runMailbox(rest).then(() => 0);
      if (subcommand !== 'fake-provider') {
        console.error(
          `Unknown dev command "${subcommand ?? ''}".\n\n${FAKE_PROVIDER_USAGE}\n\nUsage: accounts dev mailbox [--port 2525]`,
        );
        return 1;
      }
      await runFakeProvider(rest, config.providers);
      return 0;
    }
    default:
      console.error(`Unknown command "${command}".\n\n${USAGE}`);
      return 1;
  }
}

/** Errors of binding the listening socket: the operator's setting, not a fault of the service. */
const LISTEN_ERRORS = new Set(['EADDRINUSE', 'EADDRNOTAVAIL', 'EACCES', 'ENOTFOUND', 'EAI_AGAIN']);

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (error: unknown) => {
    // One clear line for a configuration mistake or an address that cannot be listened on; the full error
    // for anything else.
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    if (error instanceof ConfigError) console.error(error.message);
    else if (code !== undefined && LISTEN_ERRORS.has(code)) {
      console.error(`Cannot listen (check HOST and PORT): ${code} ${(error as Error).message}`);
    } else console.error(error);
    process.exit(1);
  },
);
