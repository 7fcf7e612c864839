import { Command } from 'commander';
import { SERVICE_VERSION } from '../version.js';
import { registerAuditCommands } from './audit.js';
import { registerBannerCommands } from './banner.js';
import { registerConsentCommands } from './consent.js';
import type { CommandEnvironment, HandedCommandRunner } from './environment.js';
import { registerIdentityCommands } from './identity.js';
import { registerInspirerCommands } from './inspirer.js';
import { registerKeyCommands } from './keys.js';
import { registerPostCommands } from './post.js';
import { type RunState, registerServerCommands } from './server-commands.js';
import { registerServiceCommands } from './service.js';
import { registerStaffCommands } from './staff.js';
import { registerTokenCommands } from './token.js';
import { registerUserCommands } from './user.js';
import { registerWebhookCommands } from './webhook.js';

/**
 * The bare `accounts` program (commander): `--help` at every level, `--version`, and a bad argument is one
 * line on stderr and exit 1. Settings are made before any subcommand is added, so every level inherits them.
 * Commander never exits the process itself: where it would, it throws a `CommanderError` with the exit code
 * (`runCommandLine` returns it), so the same program also runs inside another process.
 */
function accountsProgram({ terminal }: CommandEnvironment): Command {
  return (
    new Command('accounts')
      .usage('<command> [options]')
      .description(
        'The accounts service and its operator commands. Configuration comes from the environment; see the README.',
      )
      .version(SERVICE_VERSION, '-V, --version', 'print the version')
      // The program's own options come before a command: `consent publish --version 2` is the document's.
      .enablePositionalOptions()
      .helpOption('-h, --help', 'show help for a command')
      .showSuggestionAfterError(true)
      .exitOverride()
      .configureOutput({
        writeOut: (text) => terminal.writeOut(text),
        writeErr: (text) => terminal.writeErr(text),
        // commander's own errors ("error: unknown option '--x'") are already one line; keep them so.
        outputError: (message, write) => write(`${message.trimEnd().replaceAll('\n', ' ')}\n`),
      })
  );
}

/** The operator commands: what works on the database through the services, in a process or a server. */
function registerOperatorCommands(program: Command, environment: CommandEnvironment): void {
  registerBannerCommands(program, environment);
  registerInspirerCommands(program, environment);
  registerUserCommands(program, environment);
  registerTokenCommands(program, environment);
  registerPostCommands(program, environment);
  registerConsentCommands(program, environment);
  registerWebhookCommands(program, environment);
  registerIdentityCommands(program, environment);
  registerKeyCommands(program, environment);
  registerServiceCommands(program, environment);
  registerStaffCommands(program, environment);
  registerAuditCommands(program, environment);
}

/**
 * The whole `accounts` command line: the service itself (`serve`, `migrate`, the `dev` fakes) and the
 * operator commands. `runHanded` runs the command lines a running server is handed.
 */
export function buildProgram(
  state: RunState,
  environment: CommandEnvironment,
  runHanded: HandedCommandRunner,
): Command {
  const program = accountsProgram(environment);
  registerServerCommands(program, state, environment, runHanded);
  registerOperatorCommands(program, environment);
  // An unknown command, at the top as in a group, is commander's one line ("error: unknown command 'usr'
  // (Did you mean user?)") and exit 1: `--help` shows what there is.
  return program;
}

/** The operator commands alone: what a running server runs for a command (never `serve` or `migrate`). */
export function buildOperatorProgram(environment: CommandEnvironment): Command {
  const program = accountsProgram(environment);
  registerOperatorCommands(program, environment);
  return program;
}
