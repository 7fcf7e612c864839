import type { Command } from 'commander';
import type { OperatorUserView } from '../modules/users/operator-service.js';
import { withOperatorServices } from './context.js';
import { OperatorError, printColumns, printJson } from './output.js';

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

/** `accounts user show|disable|enable|delete`. */
export function registerUserCommands(program: Command): void {
  const user = program.command('user').description('Look up, disable, enable and delete accounts');

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

  user
    .command('delete')
    .description(
      'Delete an account and everything of it (tokens, devices, provider links, posts, likes, files), as ' +
        'user/delete does; the email, username and slug are free again at once. Cannot be undone',
    )
    .argument(...USER_ARGUMENT)
    .option('--yes', 'confirm the deletion (required: a slip must never delete someone)')
    .action(async (reference: string, options: { yes?: boolean }) => {
      if (!options.yes) {
        throw new OperatorError(`Not deleted: add --yes to delete "${reference}" and everything of it`);
      }
      const deleted = await withOperatorServices(async ({ users, deletion }) => {
        const found = await users.find(reference);
        return deletion.deleteAsOperator(found);
      });
      if (!deleted) throw new OperatorError(`user "${reference}" was deleted meanwhile`);
      console.log(`Deleted ${deleted.username} (${deleted.id}).`);
    });
}
