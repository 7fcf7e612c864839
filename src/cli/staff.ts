import { userInfo } from 'node:os';
import type { Command } from 'commander';
import type { StaffView } from '../modules/staff/service.js';
import type { CommandEnvironment } from './environment.js';
import { printColumns, printJson } from './output.js';
import { printLine } from './terminal.js';

interface JsonOption {
  json?: boolean;
}

/** Who changes rights from the command line, as the record of rights names them: `cli:<os user>`. */
function cliActor(): string {
  try {
    return `cli:${userInfo().username}`;
  } catch {
    // A container user without a passwd entry.
    return 'cli:unknown';
  }
}

function printStaff(terminal: CommandEnvironment['terminal'], rows: StaffView[]): void {
  if (rows.length === 0) {
    printLine(terminal, 'No staff.');
    return;
  }
  printColumns(terminal, [
    ['ID', 'EMAIL', 'ROLE', 'STATE'],
    ...rows.map((row) => [
      row.id,
      row.email,
      row.role,
      row.locked_until ? `${row.state} until ${row.locked_until}` : row.state,
    ]),
  ]);
}

/** `accounts staff add|list|role|disable|enable|remove|unlock`: the console's staff (docs/console.md). */
export function registerStaffCommands(
  program: Command,
  { terminal, withServices }: CommandEnvironment,
): void {
  const staff = program
    .command('staff')
    .description("Manage the operator console's staff accounts (apart from users; docs/console.md)");

  staff
    .command('add')
    .description(
      'Add a staff member; prints a one-time enrollment link (24 h) to set a password and a second factor',
    )
    .argument('<email>', 'their email address')
    .requiredOption('--role <role>', 'viewer, support, content or admin')
    .option('--json', 'print {"id","email","role","enrollment_url"} as JSON')
    .action(async (email: string, options: { role: string } & JsonOption) => {
      const added = await withServices(({ staff }) => staff.add(email, options.role, cliActor()));
      if (options.json) return printJson(terminal, added);
      printLine(terminal, `Added ${added.email} (${added.role}, ${added.id}).`);
      printLine(terminal, `Enrollment link, valid 24 hours, shown this once: ${added.enrollment_url}`);
    });

  staff
    .command('list')
    .description('List the staff, their roles and states')
    .option('--json', 'print the list as JSON')
    .action(async (options: JsonOption) => {
      const rows = await withServices(({ staff }) => staff.list());
      if (options.json) return printJson(terminal, rows);
      printStaff(terminal, rows);
    });

  staff
    .command('role')
    .description("Change a staff member's role (their sessions end)")
    .argument('<staff>', 'their id or email')
    .argument('<role>', 'viewer, support, content or admin')
    .option('--json', 'print the member as JSON')
    .action(async (reference: string, role: string, options: JsonOption) => {
      const view = await withServices(({ staff }) => staff.setRole(reference, role, cliActor()));
      if (options.json) return printJson(terminal, view);
      printLine(terminal, `${view.email} is now ${view.role}.`);
    });

  staff
    .command('history')
    .description("The recorded changes of a member's rights: who, when, the role before and after")
    .argument('<staff>', 'their id or email')
    .option('--json', 'print the changes as JSON')
    .action(async (reference: string, options: JsonOption) => {
      const changes = await withServices(({ staff }) => staff.history(reference));
      if (options.json) return printJson(terminal, changes);
      printColumns(terminal, [
        ['WHEN', 'ACTION', 'BY', 'BEFORE', 'AFTER'],
        ...changes.map((change) => [
          change.created_at,
          change.action,
          change.actor,
          change.role_before ?? '-',
          change.role_after ?? '-',
        ]),
      ]);
    });

  const changes = [
    ['disable', 'Disable a staff member (their sessions end)', 'disable', 'Disabled'],
    ['enable', 'Enable a disabled staff member', 'enable', 'Enabled'],
    ['unlock', 'Unlock a staff member locked by wrong passwords or codes', 'unlock', 'Unlocked'],
    ['remove', 'Remove a staff member (the record of their rights stays)', 'remove', 'Removed'],
  ] as const;
  for (const [name, description, method, done] of changes) {
    staff
      .command(name)
      .description(description)
      .argument('<staff>', 'their id or email')
      .option('--json', 'print the member as JSON')
      .action(async (reference: string, options: JsonOption) => {
        const view = await withServices(({ staff }) => staff[method](reference, cliActor()));
        if (options.json) return printJson(terminal, view);
        printLine(terminal, `${done} ${view.email} (${view.id}).`);
      });
  }
}
