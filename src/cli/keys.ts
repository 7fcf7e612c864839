import type { Command } from 'commander';
import { AccessTokensNotConfiguredError } from '../errors.js';
import type { SigningKeyView } from '../modules/signing-keys/service.js';
import type { CommandEnvironment } from './environment.js';
import { OperatorError, printColumns, printJson } from './output.js';
import { printLine } from './terminal.js';

const columns = (keys: SigningKeyView[]) => [
  ['KID', 'ALG', 'STATE', 'PUBLISHED FROM', 'SIGNS FROM', 'RETIRED AFTER'],
  ...keys.map((key) => [
    key.kid,
    key.alg,
    key.state,
    key.publish_from,
    key.sign_from,
    key.retire_after ?? '',
  ]),
];

/** `accounts keys list [--json]` and `accounts keys rotate [--json]` (docs/tokens.md). */
export function registerKeyCommands(program: Command, { terminal, withServices }: CommandEnvironment): void {
  const keys = program.command('keys').description('The keys access tokens are signed with (docs/tokens.md)');

  keys
    .command('list')
    .description('List the signing keys: which signs, which are published, which are retired')
    .option('--json', 'print the keys as JSON')
    .action(async (options: { json?: boolean }) => {
      const list = await withServices(({ signingKeys }) => signingKeys.list());
      if (options.json) return printJson(terminal, list);
      if (list.length === 0)
        return printLine(terminal, 'No signing keys yet: the first auth/token makes one.');
      printColumns(terminal, columns(list));
    });

  keys
    .command('rotate')
    .description(
      'Publish a new key now; it signs after ACCESS_KEY_PUBLISH_AHEAD, and the old one is dropped once its last token expired',
    )
    .option('--json', 'print the new key as JSON')
    .action(async (options: { json?: boolean }) => {
      const made = await withServices(async ({ signingKeys }) => {
        if (!signingKeys.configured) throw new OperatorError(new AccessTokensNotConfiguredError().message);
        return signingKeys.rotate();
      });
      if (options.json) return printJson(terminal, made);
      printLine(terminal, `Published key ${made.kid} (${made.alg}); it signs from ${made.sign_from}.`);
    });
}
