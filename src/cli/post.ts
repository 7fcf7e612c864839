import type { Command } from 'commander';
import { requireReason } from '../account/console-users/staff-access.js';
import type { ModeratedPostView } from '../modules/posts/moderation.js';
import type { CommandEnvironment } from './environment.js';
import { OperatorError, printColumns, printJson } from './output.js';
import { recorded } from './recorded.js';
import { printLine } from './terminal.js';

const notFound = (postId: string) => new OperatorError(`Post "${postId}" not found`);

function printPost(env: CommandEnvironment, post: ModeratedPostView): void {
  const hidden =
    post.hidden_at === null
      ? post.author_hidden
        ? 'while its author’s deletion is scheduled'
        : 'no'
      : `${post.hidden_at}: ${post.hidden_reason ?? ''}`;
  printColumns(env.terminal, [
    ['id', post.id],
    ['author', `${post.author.username} (${post.author.id})`],
    ['created', post.created_at],
    ['likes', String(post.like_count)],
    ['images', String(post.image_count)],
    ['hidden', hidden],
  ]);
  printLine(env.terminal, '');
  printLine(env.terminal, post.text);
}

/**
 * `accounts post show|hide|unhide|remove`: the console's moderation from the command line, on the same
 * services. A post is its author's data: each command is an access record about the author, as each step is
 * in the console; hiding and showing again need a reason (kept with a hidden post, and in the record), a
 * removal takes one.
 */
export function registerPostCommands(program: Command, env: CommandEnvironment): void {
  const { terminal } = env;
  const post = program.command('post').description('Moderate posts');

  post
    .command('show')
    .description('Show a post, hidden or not, with whether, when and why it is hidden')
    .argument('<post-id>', 'the post id (as the API shows it)')
    .option('--json', 'print the post as JSON')
    .action(async (postId: string, options: { json?: boolean }) => {
      const found = await recorded(env, 'post.view', async ({ moderation }, note) => {
        const shown = await moderation.find(postId);
        if (!shown) throw notFound(postId);
        note.subject(shown.author.id);
        note.detail({ post_id: shown.id });
        return shown;
      });
      if (options.json) printJson(terminal, found);
      else printPost(env, found);
    });

  for (const [name, description] of [
    ['hide', 'Hide a post from the feed and its page, keeping it and why'],
    ['unhide', 'Show a hidden post again'],
  ] as const) {
    post
      .command(name)
      .description(description)
      .argument('<post-id>', 'the post id (as the API shows it)')
      .requiredOption('--reason <text>', 'why, for the access record (and, hidden, kept with the post)')
      .action(async (postId: string, options: { reason: string }) => {
        const reason = requireReason(options.reason);
        await recorded(env, `post.${name}`, async ({ moderation }, note) => {
          const target = await moderation.find(postId);
          if (!target) throw notFound(postId);
          note.subject(target.author.id);
          note.detail({ post_id: target.id, reason });
          const done =
            name === 'hide' ? await moderation.hide(target.id, reason) : await moderation.unhide(target.id);
          if (!done) throw notFound(postId);
        });
        printLine(terminal, `${name === 'hide' ? 'Hidden' : 'Shown again'}: post ${postId}.`);
      });
  }

  post
    .command('remove')
    .description('Remove a post, whoever wrote it, with its likes and image files')
    .argument('<post-id>', 'the post id (as the API shows it)')
    .option('--reason <text>', 'why, for the access record')
    .action(async (postId: string, options: { reason?: string }) => {
      const reason = options.reason === undefined ? undefined : requireReason(options.reason);
      await recorded(env, 'post.delete', async ({ moderation, posts }, note) => {
        const target = await moderation.find(postId);
        if (!target) throw notFound(postId);
        note.subject(target.author.id);
        note.detail({ post_id: target.id, ...(reason === undefined ? {} : { reason }) });
        if (!(await posts.removeAsOperator(target.id))) throw notFound(postId);
      });
      printLine(terminal, `Removed post ${postId}.`);
    });
}
