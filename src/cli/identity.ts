import type { Command } from 'commander';
import type { CommandEnvironment } from './environment.js';
import { OperatorError } from './output.js';
import { recorded } from './recorded.js';
import { printLine } from './terminal.js';

/** `accounts identity release USER`. */
export function registerIdentityCommands(program: Command, environment: CommandEnvironment): void {
  const { terminal } = environment;
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
      const line = await recorded(
        environment,
        'user.identity.release',
        async ({ users, identity: verifications }, note) => {
          const found = await users.find(reference);
          note.subject(found.id);
          if (!(await verifications.release(found.id))) {
            throw new OperatorError(`${found.username} (${found.id}) has no identity verification`);
          }
          return `Released the identity verification of ${found.username} (${found.id}).`;
        },
      );
      printLine(terminal, line);
    });
}
