import path from 'node:path';
import { type OperatorSession, openOperatorSession } from '../../src/cli/context.js';
import { type CommandEnvironment, configOnce } from '../../src/cli/environment.js';
import { osUserName } from '../../src/cli/os-user.js';
import { runCommandLine } from '../../src/cli/run.js';
import type { Terminal } from '../../src/cli/terminal.js';
import type { CliResult } from './process.js';

/** Operator commands run in the test's own process, as `runCli` runs them in a child. */
export interface InProcessCommands {
  /** Runs `accounts <args>` to completion: its exit code and everything it wrote. */
  run(args: string[]): Promise<CliResult>;
  /** Closes the database the commands kept open (an embedded DATA_DIR is free for a server again). */
  close(): Promise<void>;
}

/**
 * The `accounts` command line in this process: the same program, configuration (from `env` alone, as a
 * child gets it) and operator services as the binary, with one difference — the database is opened by the
 * first command that needs it and kept open for the next, where each `accounts` process opens its own. A
 * child costs 0.5–2 s of CPU (Node's start, the imports, opening the database); a command here milliseconds.
 * So a suite whose subject is what commands print and do runs them here, and keeps `runCli` for what only a
 * process shows: its exit, its lock on DATA_DIR, its first open of the database.
 */
export function inProcessCommands(env: Record<string, string>): InProcessCommands {
  const config = configOnce({ PATH: process.env.PATH ?? '', ...env });
  let current: Terminal | undefined;
  // What the services print (a mail that failed, a file left behind) goes to the command running now.
  const sessionTerminal: Terminal = {
    writeOut: (text) => current?.writeOut(text),
    writeErr: (text) => current?.writeErr(text),
  };
  let session: Promise<OperatorSession> | undefined;
  const openSession = (): Promise<OperatorSession> => {
    session ??= openOperatorSession(config(), sessionTerminal).catch((error: unknown) => {
      // A failed open (a server holding DATA_DIR, a database lacking migrations) is retried next time.
      session = undefined;
      throw error;
    });
    return session;
  };

  return {
    async run(args) {
      let stdout = '';
      let stderr = '';
      const terminal: Terminal = {
        writeOut: (text) => {
          stdout += text;
        },
        writeErr: (text) => {
          stderr += text;
        },
      };
      current = terminal;
      const environment: CommandEnvironment = {
        terminal,
        config,
        withServices: async (work) => {
          const open = await openSession();
          try {
            return await work(open.services);
          } finally {
            // As a process does before it exits: the mail the command wrote is sent.
            await open.settle();
          }
        },
        resolvePath: (file) => path.resolve(file),
        osUser: osUserName(),
      };
      try {
        const outcome = await runCommandLine(args, environment);
        if (outcome === 'serving') throw new Error('a server is started with startService, not in-process');
        return { code: outcome, stdout, stderr };
      } finally {
        current = undefined;
      }
    },
    async close() {
      const open = session;
      session = undefined;
      if (open) await (await open).close();
    },
  };
}
