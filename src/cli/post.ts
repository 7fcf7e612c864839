import type { Command } from 'commander';
import type { CommandEnvironment } from './environment.js';
import { OperatorError } from './output.js';
import { printLine } from './terminal.js';

/** `accounts post remove ID`: takes a post down (its likes with it, its image files after commit). */
export function registerPostCommands(program: Command, { terminal, withServices }: CommandEnvironment): void {
  const post = program.command('post').description('Moderate posts');

  post
    .command('remove')
    .description('Remove a post, whoever wrote it, with its likes and image files')
    .argument('<post-id>', 'the post id (as the API shows it)')
    .action(async (postId: string) => {
      const removed = await withServices(({ posts }) => posts.removeAsOperator(postId));
      if (!removed) throw new OperatorError(`Post "${postId}" not found`);
      printLine(terminal, `Removed post ${postId}.`);
    });
}
