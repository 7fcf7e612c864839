import type { Command } from 'commander';
import type { CommandEnvironment } from './environment.js';
import { OperatorError } from './output.js';
import { printLine } from './terminal.js';

/** `accounts identity release USER`. */
export function registerIdentityCommands(
  program: Command,
  { terminal, withServices }: CommandEnvironment,
): void {
  const identity = program
    .command('identity')
    .description("Manage accounts' identity verifications (PortOne)");

  identity
    .command('release')
    .description(
      "Forget an account's identity verification, for the rare support case (a person verified the wrong " +
        'account): its person may then verify another account, and the account is no longer verified (its ' +
        "birth date stays). Recorded in the account's security log",
    )
    .argument('<user>', 'the user: an id, an email or a username')
    .action(async (reference: string) => {
      const line = await withServices(async ({ users, identity: verifications }) => {
        const found = await users.find(reference);
        if (!(await verifications.release(found.id))) {
          throw new OperatorError(`${found.username} (${found.id}) has no identity verification`);
        }
        return `Released the identity verification of ${found.username} (${found.id}).`;
      });
      printLine(terminal, line);
    });
}
