import type { Command } from 'commander';
import type { IssuedServiceCredential } from '../modules/service-credentials/service.js';
import type { CommandEnvironment } from './environment.js';
import { OperatorError, printColumns, printJson } from './output.js';
import { printLine } from './terminal.js';

function printIssued(terminal: CommandEnvironment['terminal'], issued: IssuedServiceCredential): void {
  printLine(terminal, `client_id:     ${issued.client_id}`);
  printLine(terminal, `client_secret: ${issued.client_secret}`);
  printLine(terminal, 'The secret is shown this once: keep it with the service.');
}

/** `accounts service add|list|rotate|remove`: the credentials other services introspect tokens with. */
export function registerServiceCommands(
  program: Command,
  { terminal, withServices }: CommandEnvironment,
): void {
  const service = program
    .command('service')
    .description('Credentials the app’s other services introspect tokens with (docs/tokens.md)');

  service
    .command('add')
    .description('Add a service; prints its client_id and its client_secret, shown this once')
    .argument('<name>', 'the service, for the list (letters, digits, . _ -)')
    .option('--json', 'print {"id","name","client_id","client_secret",…} as JSON')
    .action(async (name: string, options: { json?: boolean }) => {
      const added = await withServices(({ serviceCredentials }) => serviceCredentials.add(name));
      if (options.json) return printJson(terminal, added);
      printLine(terminal, `Added service ${added.name}.`);
      printIssued(terminal, added);
    });

  service
    .command('list')
    .description('List the services (never their secrets)')
    .option('--json', 'print the services as JSON')
    .action(async (options: { json?: boolean }) => {
      const list = await withServices(({ serviceCredentials }) => serviceCredentials.list());
      if (options.json) return printJson(terminal, list);
      if (list.length === 0) return printLine(terminal, 'No services.');
      printColumns(terminal, [
        ['NAME', 'CLIENT ID', 'CREATED', 'ROTATED'],
        ...list.map((item) => [item.name, item.client_id, item.created_at, item.rotated_at ?? '']),
      ]);
    });

  service
    .command('rotate')
    .description('Give a service a new secret (shown once); the old one stops working at once')
    .argument('<service>', 'its name or client_id')
    .option('--json', 'print the credential with its new client_secret as JSON')
    .action(async (reference: string, options: { json?: boolean }) => {
      const rotated = await withServices(({ serviceCredentials }) => serviceCredentials.rotate(reference));
      if (rotated === undefined) throw new OperatorError(`Service "${reference}" not found`);
      if (options.json) return printJson(terminal, rotated);
      printIssued(terminal, rotated);
    });

  service
    .command('remove')
    .description('Remove a service: its credential stops working at once')
    .argument('<service>', 'its name or client_id')
    .action(async (reference: string) => {
      const removed = await withServices(({ serviceCredentials }) => serviceCredentials.remove(reference));
      if (removed === undefined) throw new OperatorError(`Service "${reference}" not found`);
      printLine(terminal, `Removed service ${removed.name} (${removed.client_id}).`);
    });
}
