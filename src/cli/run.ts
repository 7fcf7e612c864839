import { CommanderError } from 'commander';
import { startupErrorLine } from '../startup-errors.js';
import type { CommandEnvironment } from './environment.js';
import { HandedOver, operatorMessage } from './output.js';
import { buildOperatorProgram, buildProgram } from './program.js';
import type { RunState } from './server-commands.js';
import { printProblemLine } from './terminal.js';

/** How a command line ended: an exit code, or `serving` when the process goes on as a server. */
export type CommandOutcome = number | 'serving';

/**
 * Runs one `accounts` command line in `environment` and says how it ended. Nothing here exits the process:
 * the `accounts` binary does that with the code (src/main.ts), and a caller in the same process reads it.
 * `operatorOnly`: the operator commands alone, as a server runs the command lines it is handed.
 */
export async function runCommandLine(
  argv: string[],
  environment: CommandEnvironment,
  { operatorOnly = false }: { operatorOnly?: boolean } = {},
): Promise<CommandOutcome> {
  const state: RunState = { keepRunning: false };
  const program = operatorOnly
    ? buildOperatorProgram(environment)
    : buildProgram(state, environment, runHandedCommand);
  if (argv.length === 0) {
    // No command: what there is, and a failure (a script that forgot its command must not pass).
    program.outputHelp();
    return 1;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    // Commander has already written its own message (a bad argument) or the help and version asked for.
    if (error instanceof CommanderError) return error.exitCode;
    // The server holding DATA_DIR ran the command and wrote its output.
    if (error instanceof HandedOver) return error.exitCode;
    // One clear line for what the operator can fix (a setting, an argument, a server holding DATA_DIR, an
    // address in use); the whole error, stack included, only for a fault of ours.
    printProblemLine(environment.terminal, startupErrorLine(error) ?? operatorMessage(error) ?? error);
    return 1;
  }
  return state.keepRunning ? 'serving' : 0;
}

/** A command line handed to a running server: the operator commands alone, never a second server. */
async function runHandedCommand(argv: string[], environment: CommandEnvironment): Promise<number> {
  const outcome = await runCommandLine(argv, environment, { operatorOnly: true });
  return outcome === 'serving' ? 1 : outcome;
}
