import { chmod, lstat, unlink } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import {
  ALIVE_INTERVAL_MS,
  type CommandFrame,
  type CommandRequest,
  encodeFrame,
  LineReader,
  MAX_REQUEST_BYTES,
  OUTPUT_PIECE_CHARS,
  parseRequest,
  REQUEST_TIMEOUT_MS,
} from './command-protocol.js';
import type { Terminal } from './terminal.js';

/** Where the server says what the socket did: its logger. */
export interface CommandLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

export interface CommandServerOptions {
  socketPath: string;
  log: CommandLog;
  /** Runs one command line, its output to `terminal`; resolves to its exit code. */
  run(request: CommandRequest, terminal: Terminal): Promise<number>;
  /** Commands running at once; one more is refused with a line (default 4). */
  maxRunning?: number;
}

export interface CommandServer {
  /** Stops taking commands, lets those running finish for up to `timeoutMs`, then cuts them off. */
  close(timeoutMs: number): Promise<void>;
}

/** What the server holds of a command's output before it drops a reader that does not read. */
const MAX_UNREAD_BYTES = 8 * 1024 * 1024;

/** The words of a command line before its first option (`webhook add`): what the log names, never values. */
function commandName(argv: string[]): string {
  const words: string[] = [];
  for (const arg of argv) {
    if (arg.startsWith('-') || words.length === 2 || !/^[a-z0-9-]{1,32}$/.test(arg)) break;
    words.push(arg);
  }
  return words.join(' ');
}

/**
 * One connection: the request within REQUEST_TIMEOUT_MS and MAX_REQUEST_BYTES, then the command's output as
 * it is written, a sign of life every ALIVE_INTERVAL_MS, and the exit code. A peer that sends too much, too
 * late or nonsense is cut off; one that stops reading is dropped, and its command runs to its end.
 */
class CommandConnection {
  private finished = false;

  constructor(
    private readonly socket: Socket,
    private readonly options: CommandServerOptions,
    private readonly running: Set<Promise<void>>,
  ) {}

  start(): void {
    const { socket } = this;
    // A peer that went away mid-answer is not the server's problem.
    socket.on('error', () => undefined);
    const timer = setTimeout(() => socket.destroy(), REQUEST_TIMEOUT_MS);
    const reader = new LineReader(MAX_REQUEST_BYTES, (line) => {
      clearTimeout(timer);
      socket.removeListener('data', onData);
      // Nothing more is read: the command has no standard input.
      socket.pause();
      const request = parseRequest(line);
      if (request === undefined) this.refuse('The accounts server could not read the command.');
      else this.accept(request);
    });
    const onData = (chunk: Buffer) => {
      try {
        reader.push(chunk);
      } catch {
        clearTimeout(timer);
        socket.destroy();
      }
    };
    socket.on('data', onData);
    socket.on('close', () => clearTimeout(timer));
  }

  private send(frame: CommandFrame): void {
    const { socket } = this;
    if (socket.destroyed) return;
    socket.write(encodeFrame(frame));
    if (socket.writableLength > MAX_UNREAD_BYTES) socket.destroy();
  }

  private sendText(kind: 'out' | 'err', text: string): void {
    for (let start = 0; start < text.length; start += OUTPUT_PIECE_CHARS) {
      const piece = text.slice(start, start + OUTPUT_PIECE_CHARS);
      this.send(kind === 'out' ? { out: piece } : { err: piece });
    }
  }

  private finish(code: number): void {
    if (this.finished) return;
    this.finished = true;
    this.send({ exit: code });
    this.socket.end();
  }

  private refuse(line: string): void {
    this.sendText('err', `${line}\n`);
    this.finish(1);
  }

  private accept(request: CommandRequest): void {
    const { maxRunning = 4, log, run } = this.options;
    if (this.running.size >= maxRunning) {
      this.refuse(`The accounts server is running ${this.running.size} commands already; try again.`);
      return;
    }
    const alive = setInterval(() => this.send({ alive: true }), ALIVE_INTERVAL_MS);
    const terminal: Terminal = {
      writeOut: (text) => this.sendText('out', text),
      writeErr: (text) => this.sendText('err', text),
    };
    const command = commandName(request.argv);
    const task = run(request, terminal)
      .catch((error: unknown) => {
        // runCommandLine answers every error of a command; one here is a fault of ours.
        log.warn({ err: error, command }, 'operator command failed');
        terminal.writeErr('The command failed in the accounts server; its log says why.\n');
        return 1;
      })
      .then((code) => {
        clearInterval(alive);
        log.info({ command, user: request.user, pid: request.pid, exit: code }, 'operator command');
        this.finish(code);
      });
    this.running.add(task);
    void task.finally(() => this.running.delete(task));
  }

  /** Ends the connection of a command that did not finish in time (the command sees the server go). */
  cutOff(): void {
    this.socket.destroy();
  }
}

/** Removes a socket an earlier server left (it died); never anything else that has the name. */
async function removeStaleSocket(socketPath: string): Promise<boolean> {
  const existing = await lstat(socketPath).catch(() => undefined);
  if (existing === undefined) return true;
  if (!existing.isSocket()) return false;
  await unlink(socketPath);
  return true;
}

/**
 * Takes operator commands on a Unix socket in DATA_DIR while the server runs (docs/cli.md). The caller holds
 * DATA_DIR's lock, so a socket already there is a dead server's: it is replaced. The socket is owner-only
 * (0600, in the 0700 DATA_DIR): only DATA_DIR's owner can connect, the user a command would run as anyway.
 * Resolves to undefined, after a warning, when the socket cannot be made: the server runs without it.
 */
export async function listenForCommands(options: CommandServerOptions): Promise<CommandServer | undefined> {
  const { socketPath, log } = options;
  if (!(await removeStaleSocket(socketPath))) {
    log.warn(
      { path: socketPath },
      'operator commands not taken: something that is not a socket has its name',
    );
    return undefined;
  }
  const running = new Set<Promise<void>>();
  const connections = new Set<CommandConnection>();
  const server: Server = createServer((socket) => {
    const connection = new CommandConnection(socket, options, running);
    connections.add(connection);
    socket.on('close', () => connections.delete(connection));
    connection.start();
  });
  // Connections waiting for their request count too: a flood of idle ones is turned away by the kernel.
  server.maxConnections = 32;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socketPath, () => {
        server.removeListener('error', reject);
        resolve();
      });
    });
    await chmod(socketPath, 0o600);
  } catch (error) {
    server.close();
    log.warn({ err: error, path: socketPath }, 'operator commands not taken: the socket cannot be made');
    return undefined;
  }
  server.on('error', (error) => log.warn({ err: error }, 'operator command socket failed'));
  return {
    close: async (timeoutMs) => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Closing waits for connections; those of running commands end below.
        setImmediate(resolve);
      });
      await unlink(socketPath).catch(() => undefined);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...running]),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, timeoutMs);
        }),
      ]);
      clearTimeout(timer);
      for (const connection of connections) connection.cutOff();
    },
  };
}
