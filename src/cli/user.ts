import type { Command } from 'commander';
import type { OperatorUserView } from '../modules/users/operator-service.js';
import { withOperatorServices } from './context.js';
import { printColumns, printJson } from './output.js';

const USER_ARGUMENT = ['<user>', 'the user: an id, an email or a username'] as const;

function printUser(user: OperatorUserView): void {
  printColumns([
    ['id', user.id],
    ['email', user.email],
    ['username', user.username],
    ['slug', user.slug],
    ['gender', String(user.gender)],
    ['providers', user.providers.length === 0 ? '-' : user.providers.join(', ')],
    ['password', user.has_password ? 'yes' : 'no'],
    ['inspirer', user.is_inspirer ? 'yes' : 'no'],
    ['disabled', user.disabled_at === null ? 'no' : `since ${user.disabled_at}`],
    ['created', user.created_at],
    ['updated', user.updated_at],
  ]);
}

/** `accounts user show|disable|enable`. */
export function registerUserCommands(program: Command): void {
  const user = program.command('user').description('Look up, disable and enable accounts');

  user
    .command('show')
    .description('Show an account')
    .argument(...USER_ARGUMENT)
    .option('--json', 'print the account as JSON')
    .action(async (reference: string, options: { json?: boolean }) => {
      const found = await withOperatorServices(({ users }) => users.show(reference));
      if (options.json) printJson(found);
      else printUser(found);
    });

  user
    .command('disable')
    .description(
      'Disable an account: it cannot sign in by any method and its tokens are refused at once ' +
        '(they work again after enable; revoke them with "token revoke --user USER --all")',
    )
    .argument(...USER_ARGUMENT)
    .action(async (reference: string) => {
      const found = await withOperatorServices(({ users }) => users.setDisabled(reference, true));
      console.log(`Disabled ${found.username} (${found.id}) since ${found.disabled_at}.`);
    });

  user
    .command('enable')
    .description('Enable a disabled account again (its tokens work again)')
    .argument(...USER_ARGUMENT)
    .action(async (reference: string) => {
      const found = await withOperatorServices(({ users }) => users.setDisabled(reference, false));
      console.log(`Enabled ${found.username} (${found.id}).`);
    });
}
