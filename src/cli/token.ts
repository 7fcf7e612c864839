import type { Command } from 'commander';
import type { CommandEnvironment } from './environment.js';
import { OperatorError } from './output.js';
import { recorded } from './recorded.js';
import { printLine } from './terminal.js';

interface RevokeOptions {
  user?: string;
  all?: boolean;
}

/** `accounts token revoke TOKEN_ID` and `accounts token revoke --user USER --all`. */
export function registerTokenCommands(program: Command, environment: CommandEnvironment): void {
  const { terminal, withServices } = environment;
  const token = program.command('token').description('Revoke API tokens (sessions)');

  token
    .command('revoke')
    .description('Revoke one token by its id, or every token of a user with --user USER --all')
    .argument('[token-id]', 'the token id (a user sees it in GET user/tokens)')
    .option('--user <user>', 'the user whose tokens to revoke: an id, an email or a username')
    .option('--all', 'with --user: revoke every token of the user')
    .action(async (tokenId: string | undefined, options: RevokeOptions) => {
      if (tokenId !== undefined && options.user !== undefined) {
        throw new OperatorError('Give either a token id or --user USER --all, not both');
      }
      if (tokenId !== undefined) {
        const revoked = await withServices(({ tokens }) => tokens.revokeById(tokenId));
        if (!revoked) throw new OperatorError(`Token "${tokenId}" not found`);
        printLine(terminal, `Revoked token ${tokenId}.`);
        return;
      }
      const reference = options.user;
      if (reference === undefined) throw new OperatorError('Give a token id, or --user USER --all');
      // Spelled out so that a slip of the keyboard never signs someone out of every device.
      if (!options.all)
        throw new OperatorError('--user revokes every token of the user: add --all to confirm');
      const { user, count } = await recorded(
        environment,
        'user.sessions.revoke',
        async ({ users, tokens }, note) => {
          const found = await users.find(reference);
          note.subject(found.id);
          return { user: found, count: await tokens.revokeAllOf(found.id) };
        },
      );
      printLine(
        terminal,
        `Revoked ${count} token${count === 1 ? '' : 's'} of ${user.username} (${user.id}).`,
      );
    });
}
