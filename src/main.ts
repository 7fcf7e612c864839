#!/usr/bin/env node
import { operatorMessage } from './cli/output.js';
import { buildProgram } from './cli/program.js';
import type { RunState } from './cli/server-commands.js';
import { startupErrorLine } from './startup-errors.js';

async function main(argv: string[]): Promise<number> {
  const state: RunState = { keepRunning: false };
  const program = buildProgram(state);
  if (argv.length === 0) {
    // No command: what there is, and a failure (a script that forgot its command must not pass).
    program.outputHelp();
    return 1;
  }
  await program.parseAsync(argv, { from: 'user' });
  return state.keepRunning ? -1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (error: unknown) => {
    // One clear line for what the operator can fix (a setting, an argument, a server holding DATA_DIR, an
    // address in use); the whole error, stack included, only for a fault of ours.
    const message = startupErrorLine(error) ?? operatorMessage(error);
    console.error(message ?? error);
    process.exit(1);
  },
);
