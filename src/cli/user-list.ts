import type { Command } from 'commander';
import { USER_LIST_LIMIT } from '../modules/users/list-service.js';
import type { CommandEnvironment } from './environment.js';
import { OperatorError, printColumns, printJson } from './output.js';
import { recorded } from './recorded.js';
import { printLine } from './terminal.js';

interface ListOptions {
  query?: string;
  limit?: string;
  cursor?: string;
  json?: boolean;
}

/** `20`: a page size --limit accepts, 1 to 100. */
function parseLimit(value: string): number {
  const limit = /^\d{1,3}$/.test(value) ? Number(value) : Number.NaN;
  if (!(limit >= USER_LIST_LIMIT.min && limit <= USER_LIST_LIMIT.max)) {
    throw new OperatorError(
      `--limit: a whole number from ${USER_LIST_LIMIT.min} to ${USER_LIST_LIMIT.max} (got "${value}")`,
    );
  }
  return limit;
}

/** `accounts user list [--query Q] [--limit N] [--cursor C] [--json]`. */
export function registerUserListCommand(user: Command, environment: CommandEnvironment): void {
  const { terminal } = environment;
  user
    .command('list')
    .description(
      'Find accounts whose email, username or slug begins with the query (any case; an exact value too), ' +
        'or whose id does; without a query, every account. In id order, a page at a time: the next page ' +
        'starts at the --cursor the page prints last',
    )
    .option('--query <text>', 'the start of an email, a username, a slug or an id (% and _ are literal)')
    .option('--limit <n>', `accounts per page, ${USER_LIST_LIMIT.min} to ${USER_LIST_LIMIT.max}`, '20')
    .option('--cursor <cursor>', 'the next_cursor a previous page printed, with the same --query')
    .option('--json', 'print {"users","next_cursor"} as JSON')
    .action(async (options: ListOptions) => {
      const limit = parseLimit(options.limit ?? String(USER_LIST_LIMIT.default));
      // A search touches no one person: its query and how many rows it showed are the record's detail.
      const page = await recorded(environment, 'users.search', async ({ userList }, note) => {
        note.detail({ query: options.query ?? null, limit });
        const found = await userList.list({ query: options.query, limit, cursor: options.cursor });
        note.detail({ rows: found.users.length });
        return found;
      });
      if (options.json) return printJson(terminal, page);
      if (page.users.length === 0) printLine(terminal, 'No users.');
      else {
        printColumns(terminal, [
          ['ID', 'EMAIL', 'USERNAME', 'SLUG', 'CREATED', 'STATE'],
          ...page.users.map((found) => [
            found.id,
            found.email,
            found.username,
            found.slug,
            found.created_at,
            found.disabled_at === null ? 'enabled' : `disabled ${found.disabled_at}`,
          ]),
        ]);
      }
      if (page.next_cursor !== null) printLine(terminal, `next_cursor: ${page.next_cursor}`);
    });
}
