import { type Command, InvalidArgumentError } from 'commander';
import { boundHeapGrowth } from '../lib/heap-growth.js';
import { databaseStartupError } from '../startup-errors.js';
import type { CommandEnvironment, HandedCommandRunner } from './environment.js';
import { printLine } from './terminal.js';

/** What main must know of a command once it returns: whether the process keeps running (a server). */
export interface RunState {
  keepRunning: boolean;
}

function portNumber(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw new InvalidArgumentError('must be 0-65535.');
  return port;
}

/** `serve`, `migrate` and the `dev` fakes: the service itself. */
export function registerServerCommands(
  program: Command,
  state: RunState,
  { config, terminal }: CommandEnvironment,
  runHanded: HandedCommandRunner,
): void {
  program
    .command('serve')
    .description('Start the HTTP service (migrates first unless MIGRATE_ON_START=false)')
    .action(async () => {
      boundHeapGrowth();
      // Loaded here, not at the top: the whole HTTP service is a second's import the other commands never use.
      const { closeOnSignals, startServer } = await import('../server.js');
      // The embedded database is this process's alone: operator commands are handed to it over a socket.
      const embedded = config().databaseUrl === undefined;
      const server = await startServer(config(), {
        companion: embedded
          ? async (parts) => (await import('./command-handover.js')).takeOperatorCommands(parts, runHanded)
          : undefined,
      });
      closeOnSignals(server, config().shutdownTimeoutMs);
      state.keepRunning = true;
    });

  program
    .command('migrate')
    .description('Apply pending database migrations and exit')
    .action(async () => {
      // The database's modules are loaded by the commands that open one, not by every start of the CLI.
      const [{ openConfiguredDatabase }, { migrate }] = await Promise.all([
        import('../db/open-configured.js'),
        import('../db/migrate.js'),
      ]);
      const database = await openConfiguredDatabase(config());
      try {
        // A database that cannot be reached or entered is one line naming DATABASE_URL.
        const applied = await migrate(database).catch((error: unknown) => {
          throw databaseStartupError(error, true) ?? error;
        });
        printLine(terminal, applied.length === 0 ? 'Nothing to migrate.' : `Applied: ${applied.join(', ')}`);
      } finally {
        await database.close();
      }
    });

  const dev = program.command('dev').description('Development helpers');
  dev
    .command('fake-provider')
    .description(
      'Run a development identity provider on 127.0.0.1 and print the PROVIDER_* settings that point every ' +
        'provider in PROVIDERS at it (those named by --id-token as the id-token kind, the others as userinfo)',
    )
    .option('--port <port>', 'port to listen on', portNumber, 9400)
    .option('--client-id <id>', 'the client id its tokens are issued to', 'accounts-dev')
    .option('--id-token <names>', 'comma-separated providers served as OIDC id-token providers', 'beta')
    .action(async (options: { port: number; clientId: string; idToken: string }) => {
      const { runFakeProvider } = await import('../dev/fake-provider-command.js');
      await runFakeProvider(options, config().providers);
    });

  dev
    .command('fake-fcm')
    .description(
      'Run a development FCM on 127.0.0.1 (OAuth token endpoint and HTTP v1 messages:send), write the ' +
        'service-account key it made for this run and print the PUSH_TRANSPORT/FCM_* settings for it',
    )
    .option('--port <port>', 'port to listen on', portNumber, 9500)
    .option('--project-id <id>', 'the FCM project id', 'accounts-dev')
    .option('--key-file <path>', 'where to write the service-account key (mode 0600)', 'fake-fcm-key.json')
    .action(async (options: { port: number; projectId: string; keyFile: string }) => {
      const { runFakeFcm } = await import('../dev/fake-fcm-command.js');
      await runFakeFcm(options);
    });

  dev
    .command('mailbox')
    .description('Run a development SMTP sink on 127.0.0.1 that prints every mail it receives')
    .option('--port <port>', 'port to listen on', portNumber, 2525)
    .action(async (options: { port: number }) => {
      // Loaded only when asked for: its SMTP server and mail parser would slow every other command's start.
      await (await import('../dev/mailbox.js')).runMailbox(options);
    });
}
