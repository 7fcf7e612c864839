import path from 'node:path';
import { type OperatorSession, openOperatorSession, operatorSessionOn } from '../../src/cli/context.js';
import { type CommandEnvironment, configOnce } from '../../src/cli/environment.js';
import { osUserName } from '../../src/cli/os-user.js';
import { runCommandLine } from '../../src/cli/run.js';
import type { Terminal } from '../../src/cli/terminal.js';
import type { DatabaseHandle } from '../../src/db/client.js';
import type { TestApp } from './app.js';
import { TEST_SECRETS_KEY } from './config.js';
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
 *
 * `database`: the commands work on this open database (a test app's), as a running server runs the commands
 * handed to it, instead of opening the configured one; it stays open when they close. So a suite checks what
 * a command did through the app's HTTP answers without a server process.
 */
export function inProcessCommands(
  env: Record<string, string>,
  { database }: { database?: DatabaseHandle } = {},
): InProcessCommands {
  const config = configOnce({ PATH: process.env.PATH ?? '', ...env });
  let current: Terminal | undefined;
  // What the services print (a mail that failed, a file left behind) goes to the command running now.
  const sessionTerminal: Terminal = {
    writeOut: (text) => current?.writeOut(text),
    writeErr: (text) => current?.writeErr(text),
  };
  let session: Promise<OperatorSession> | undefined;
  const openSession = (): Promise<OperatorSession> => {
    if (session) return session;
    const opened = database
      ? operatorSessionOn(config(), sessionTerminal, { database, closeDatabase: false })
      : openOperatorSession(config(), sessionTerminal);
    session = opened.catch((error: unknown) => {
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

/**
 * The commands on a test app's own database (`useTestApp`), with its DATA_DIR and SECRETS_KEY: what they do
 * is seen through `ctx.app.inject` at once, with no server process to start or stop around them.
 */
export function appCommands(ctx: TestApp, env: Record<string, string> = {}): InProcessCommands {
  return inProcessCommands(
    { DATA_DIR: ctx.dataDir, SECRETS_KEY: TEST_SECRETS_KEY, ...env },
    { database: ctx.database.handle },
  );
}
