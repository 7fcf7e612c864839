import path from 'node:path';
import type { ServerCompanion, ServerParts } from '../server.js';
import { commandSocketPath } from './command-protocol.js';
import { type CommandServer, listenForCommands } from './command-server.js';
import { operatorSessionOn } from './context.js';
import type { CommandEnvironment, HandedCommandRunner } from './environment.js';

/**
 * The environment of a command line a running server was handed: the server's configuration, and the
 * operator services built for the command on the server's own database (its one PGlite connection) and
 * pools, with role `command` as in a process of its own: its problems are written to the command's stderr,
 * and the mail it writes is sent before it ends. Files it names are read from the command's directory.
 */
function handedEnvironment(
  parts: ServerParts,
  terminal: CommandEnvironment['terminal'],
  { cwd, user }: { cwd: string; user: string },
): CommandEnvironment {
  return {
    terminal,
    config: () => parts.config,
    withServices: async (work) => {
      const session = await operatorSessionOn(parts.config, terminal, {
        database: parts.database,
        closeDatabase: false,
        pools: parts.infrastructure,
      });
      try {
        return await work(session.services);
      } finally {
        await session.settle();
        await session.close();
      }
    },
    resolvePath: (file) => path.resolve(cwd, file),
    // Who ran `accounts` (the socket is owner-only, so it is DATA_DIR's owner as the server is).
    osUser: user,
  };
}

/**
 * Takes operator commands on DATA_DIR's socket while the server runs (docs/cli.md): each command line runs
 * here as `accounts` would run it, and its output and exit code go back to the command.
 */
export async function takeOperatorCommands(
  parts: ServerParts,
  runHanded: HandedCommandRunner,
): Promise<ServerCompanion | undefined> {
  const socketPath = commandSocketPath(parts.config.dataDir);
  if (socketPath === undefined) {
    parts.log.warn(
      { dataDir: parts.config.dataDir },
      'operator commands not taken: the path of DATA_DIR is too long for a socket; stop the server to run them',
    );
    return undefined;
  }
  const server: CommandServer | undefined = await listenForCommands({
    socketPath,
    log: parts.log,
    run: (request, terminal) => runHanded(request.argv, handedEnvironment(parts, terminal, request)),
  });
  return server;
}
