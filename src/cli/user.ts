import { type FileHandle, open } from 'node:fs/promises';
import path from 'node:path';
import { type Command, Option } from 'commander';
import {
  detectFormat,
  IMPORT_FORMATS,
  ImportFileError,
  type ImportFormat,
  readImportRecords,
} from '../modules/users/import-reader.js';
import type { ImportLineError, ImportSummary } from '../modules/users/import-service.js';
import type { OperatorUserView } from '../modules/users/operator-service.js';
import type { CommandEnvironment } from './environment.js';
import { OperatorError, printColumns, printJson } from './output.js';
import { recorded } from './recorded.js';
import { printLine, type Terminal } from './terminal.js';
import { registerUserListCommand } from './user-list.js';

const USER_ARGUMENT = ['<user>', 'the user: an id, an email or a username'] as const;

function printUser(terminal: Terminal, user: OperatorUserView): void {
  printColumns(terminal, [
    ['id', user.id],
    ['email', user.email],
    ['username', user.username],
    ['slug', user.slug],
    ['gender', String(user.gender)],
    ['providers', user.providers.length === 0 ? '-' : user.providers.join(', ')],
    ['password', user.has_password ? 'yes' : 'no'],
    ['inspirer', user.is_inspirer ? 'yes' : 'no'],
    ['disabled', user.disabled_at === null ? 'no' : `since ${user.disabled_at}`],
    [
      'deletion',
      user.deletion_scheduled_for === null ? 'no' : `scheduled for ${user.deletion_scheduled_for}`,
    ],
    [
      'identity',
      user.identity_verified_at === null ? 'not verified' : `verified ${user.identity_verified_at}`,
    ],
    ['adult', user.adult === null ? 'unknown' : user.adult ? 'yes' : 'no'],
    ['guardian', user.guardian_consent ?? '-'],
    ['created', user.created_at],
    ['updated', user.updated_at],
  ]);
}

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

function importSummaryLine(summary: ImportSummary): string {
  const counts = [
    plural(summary.imported, 'user', 'users'),
    `${summary.alreadyPresent} already present`,
    `${plural(summary.errors, 'line', 'lines')} failed`,
  ];
  return summary.dryRun
    ? `Dry run, nothing written: would import ${counts.join(', ')}.`
    : `Imported ${counts.join(', ')}.`;
}

/** `accounts user import FILE`: streams the file through the import service, printing failed lines as it goes. */
async function importUsers(
  environment: CommandEnvironment,
  file: string,
  options: { format?: ImportFormat; dryRun?: boolean },
): Promise<void> {
  const { terminal, resolvePath } = environment;
  // Opened (and checked to be a file) before anything else, so a wrong path is one line, not a stream error.
  let handle: FileHandle;
  let format: ImportFormat;
  try {
    handle = await open(resolvePath(file), 'r');
    if (!(await handle.stat()).isFile()) {
      await handle.close();
      throw new OperatorError(`Cannot read ${file}: not a file`);
    }
    format = options.format ?? (await detectFormat(resolvePath(file)));
  } catch (error) {
    if (error instanceof OperatorError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new OperatorError(`Cannot read ${file}: ${code ?? (error as Error).message}`);
  }
  const printErrors = (errors: ImportLineError[]) => {
    for (const { line, reasons } of errors) printLine(terminal, `line ${line}: ${reasons.join(' ')}`);
  };
  const summary = await recorded(environment, 'users.import', async ({ importer }, note) => {
    const source = handle.createReadStream();
    try {
      const done = await importer.import(readImportRecords(source, format), {
        dryRun: options.dryRun === true,
        onErrors: printErrors,
      });
      note.detail({
        file: path.basename(file),
        imported: done.imported,
        errors: done.errors,
        dry_run: done.dryRun,
      });
      return done;
    } catch (error) {
      if (error instanceof ImportFileError) throw new OperatorError(`${file}: ${error.message}`);
      const code = (error as NodeJS.ErrnoException).code;
      if (
        typeof code === 'string' &&
        code.startsWith('E') &&
        (error as { syscall?: string }).syscall === 'read'
      ) {
        throw new OperatorError(`Cannot read ${file}: ${code}`);
      }
      throw error;
    } finally {
      source.destroy();
    }
  }).finally(() => handle.close());
  printLine(terminal, importSummaryLine(summary));
  if (summary.errors > 0) {
    throw new OperatorError(`${plural(summary.errors, 'line', 'lines')} of ${file} failed (listed above)`);
  }
}

const LANGS = ['en', 'ko'] as const;

/** `accounts user delete USER --yes [--now] [--lang ko]`: schedules, or with --now erases at once. */
async function deleteUser(
  environment: CommandEnvironment,
  reference: string,
  options: { yes?: boolean; now?: boolean; lang?: (typeof LANGS)[number] },
): Promise<void> {
  const { terminal } = environment;
  if (!options.yes) {
    throw new OperatorError(`Not deleted: add --yes to delete "${reference}" and everything of it`);
  }
  const line = await recorded(
    environment,
    'user.delete',
    async ({ users, deletion, scheduledDeletions }, note) => {
      const found = await users.find(reference);
      note.subject(found.id);
      const now = options.now === true || !scheduledDeletions.enabled;
      note.detail({ mode: now ? 'now' : 'scheduled' });
      if (now) {
        const deleted = await deletion.erase(found);
        if (!deleted) throw new OperatorError(`user "${reference}" was deleted meanwhile`);
        return `Deleted ${deleted.username} (${deleted.id}).`;
      }
      const dueAt = await scheduledDeletions.schedule(found, options.lang ?? 'en');
      if (!dueAt) {
        throw new OperatorError(
          `${found.username} (${found.id}) is already scheduled for deletion; add --now to delete it at once`,
        );
      }
      return `Scheduled the deletion of ${found.username} (${found.id}) for ${dueAt.toISOString()}.`;
    },
  );
  printLine(terminal, line);
}

/** `accounts user list|show|disable|enable|delete|2fa reset|import`. */
export function registerUserCommands(program: Command, environment: CommandEnvironment): void {
  const { terminal } = environment;
  const user = program
    .command('user')
    .description('Find, look up, disable, enable, delete and import accounts');
  registerUserListCommand(user, environment);

  user
    .command('show')
    .description('Show an account')
    .argument(...USER_ARGUMENT)
    .option('--json', 'print the account as JSON')
    .action(async (reference: string, options: { json?: boolean }) => {
      const found = await recorded(environment, 'user.view', async ({ users }, note) => {
        const shown = await users.show(reference);
        note.subject(shown.id);
        return shown;
      });
      if (options.json) printJson(terminal, found);
      else printUser(terminal, found);
    });

  user
    .command('disable')
    .description(
      'Disable an account: it cannot sign in by any method and its tokens are refused at once ' +
        '(they work again after enable; revoke them with "token revoke --user USER --all")',
    )
    .argument(...USER_ARGUMENT)
    .action(async (reference: string) => {
      const found = await recorded(environment, 'user.disable', ({ users }, note) =>
        users.find(reference).then((user) => {
          note.subject(user.id);
          return users.setDisabled(user.id, true);
        }),
      );
      printLine(terminal, `Disabled ${found.username} (${found.id}) since ${found.disabled_at}.`);
    });

  user
    .command('enable')
    .description('Enable a disabled account again (its tokens work again)')
    .argument(...USER_ARGUMENT)
    .action(async (reference: string) => {
      const found = await recorded(environment, 'user.enable', ({ users }, note) =>
        users.find(reference).then((user) => {
          note.subject(user.id);
          return users.setDisabled(user.id, false);
        }),
      );
      printLine(terminal, `Enabled ${found.username} (${found.id}).`);
    });

  user
    .command('delete')
    .description(
      'Delete an account as user/delete does: with a grace period (DELETION_GRACE_DAYS) the deletion is ' +
        'scheduled — tokens revoked, posts hidden, names kept, a mail with a link to take it back — and the ' +
        'service erases the account when it is due; with --now (or without a grace period) the account and ' +
        'everything of it (tokens, devices, provider links, posts, likes, files) go at once, the email, ' +
        'username and slug are free again, and it cannot be undone',
    )
    .argument(...USER_ARGUMENT)
    .option('--yes', 'confirm the deletion (required: a slip must never delete someone)')
    .option('--now', 'erase at once, without the grace period (a scheduled deletion too)')
    .addOption(new Option('--lang <lang>', 'language of the mail of a scheduled deletion').choices(LANGS))
    .action((reference: string, options: Parameters<typeof deleteUser>[2]) =>
      deleteUser(environment, reference, options),
    );

  user
    .command('2fa')
    .description("Manage an account's second factor")
    .command('reset')
    .description(
      'Remove the authenticator, the recovery codes and any sign-in waiting for a code: the user signs in ' +
        'with the password (or provider) alone and can set up a new authenticator. For a user who lost both ' +
        'the authenticator and the recovery codes: confirm who they are first. Logged and mailed to the user ' +
        'only when the second factor was on; a setup never finished is just cleared',
    )
    .argument(...USER_ARGUMENT)
    .option('--yes', 'confirm the reset (required: it weakens the account)')
    .addOption(
      new Option('--lang <lang>', 'language of the security alert mailed to the user').choices(LANGS),
    )
    .action(async (reference: string, options: { yes?: boolean; lang?: (typeof LANGS)[number] }) => {
      if (!options.yes) {
        throw new OperatorError(`Not reset: add --yes to remove the second factor of "${reference}"`);
      }
      const { found, outcome } = await recorded(
        environment,
        'user.second_factor.reset',
        async ({ users, secondFactor }, note) => {
          const found = await users.find(reference);
          note.subject(found.id);
          return { found, outcome: await secondFactor.reset(found, options.lang ?? 'en') };
        },
      );
      const who = `${found.username} (${found.id})`;
      printLine(
        terminal,
        {
          disabled: `Removed the second factor of ${who}.`,
          cleared_setup:
            `${who} never turned the second factor on; cleared the unfinished authenticator setup ` +
            '(nothing logged, no alert mailed).',
          nothing: `${who} has no second factor; nothing to remove.`,
        }[outcome],
      );
    });

  user
    .command('import')
    .description(
      'Import the users of the old app (Laravel) with their bcrypt password hashes, from CSV with a header row ' +
        'or JSON lines: columns email, username, slug, gender, created_at, password. Every line is checked ' +
        'with the rules of registration; a failed line is printed with its number and the rest go on. A line ' +
        'whose email and username are already a user is "already present" (a re-run changes nothing). See ' +
        'docs/IMPORT.md',
    )
    .argument(
      '<file>',
      'the file: .csv, .jsonl or .ndjson (any other name: JSON lines if it starts with "{")',
    )
    .addOption(new Option('--format <format>', 'read the file as this format').choices(IMPORT_FORMATS))
    .option('--dry-run', 'check every line and report as an import would, but write nothing')
    .addHelpText(
      'after',
      '\nExit status:\n' +
        '  0  every line was imported or already present\n' +
        '  1  some line failed (each printed as "line N: reason"; the other lines were\n' +
        '     imported), or the file or the database could not be read (one line on stderr)',
    )
    .action((file: string, options: Parameters<typeof importUsers>[2]) =>
      importUsers(environment, file, options),
    );
}
