import type { Command } from 'commander';
import type { CommandEnvironment } from './environment.js';
import { printColumns, printJson } from './output.js';
import { printLine } from './terminal.js';

const USER_ARGUMENT = ['<user>', 'the user: an id, an email or a username'] as const;

/** `accounts inspirer add|remove|list`. */
export function registerInspirerCommands(
  program: Command,
  { terminal, withServices }: CommandEnvironment,
): void {
  const inspirer = program
    .command('inspirer')
    .description('Choose the users promotions/inspirers samples from');

  inspirer
    .command('add')
    .description('Mark a user as an inspirer')
    .argument(...USER_ARGUMENT)
    .action(async (reference: string) => {
      const user = await withServices(({ promotions }) => promotions.addInspirer(reference));
      const note = user.disabled_at === null ? '' : ' (disabled: not shown until enabled)';
      printLine(terminal, `${user.username} (${user.id}) is an inspirer${note}.`);
    });

  inspirer
    .command('remove')
    .description('Stop showing a user as an inspirer')
    .argument(...USER_ARGUMENT)
    .action(async (reference: string) => {
      const user = await withServices(({ promotions }) => promotions.removeInspirer(reference));
      printLine(terminal, `${user.username} (${user.id}) is no longer an inspirer.`);
    });

  inspirer
    .command('list')
    .description('List the inspirers, by username (disabled ones are marked: they are never shown)')
    .option('--json', 'print the inspirers as JSON')
    .action(async (options: { json?: boolean }) => {
      const inspirers = await withServices(({ promotions }) => promotions.listInspirers());
      if (options.json) printJson(terminal, inspirers);
      else if (inspirers.length === 0) printLine(terminal, 'No inspirers.');
      else
        printColumns(terminal, [
          ['ID', 'USERNAME', 'EMAIL', 'STATUS'],
          ...inspirers.map((user) => [
            user.id,
            user.username,
            user.email,
            user.disabled_at ? 'disabled' : 'shown',
          ]),
        ]);
    });
}
