import path from 'node:path';

/**
 * How `accounts <command>` hands its command line to the server that holds DATA_DIR: over a Unix socket in
 * DATA_DIR (owner-only), one JSON object per line each way. The command asks once (CommandRequest); the
 * server answers with the command's output as it is written, a sign of life while it runs, and its exit
 * code last. Every line is bounded, and so is every wait on either side.
 */

/** The socket's name in DATA_DIR. */
export const COMMAND_SOCKET = 'accounts.sock';

/** The longest socket path Linux and macOS take (sun_path holds 108 and 104 bytes, with the NUL). */
const MAX_SOCKET_PATH_BYTES = 103;

/** A request: a command line of some hundred arguments is a few KB. */
export const MAX_REQUEST_BYTES = 64 * 1024;
/** An answer's line: output is sent in pieces of OUTPUT_PIECE_CHARS, so a line stays far below this. */
export const MAX_FRAME_BYTES = 1024 * 1024;
export const OUTPUT_PIECE_CHARS = 16 * 1024;
export const MAX_ARGUMENTS = 1000;

/** How long the server waits for the request once a command has connected. */
export const REQUEST_TIMEOUT_MS = 5_000;
/** How often the server says a command is still running… */
export const ALIVE_INTERVAL_MS = 5_000;
/** …and how long the command waits without a word before it gives up on the server. */
export const SILENCE_TIMEOUT_MS = 30_000;
/** How long a command waits for a server that holds DATA_DIR to take commands (it may still be starting). */
export const HANDOVER_WAIT_MS = 5_000;

/** What a command sends: its arguments, where it runs (relative paths are its), and who runs it. */
export interface CommandRequest {
  argv: string[];
  /** The command's working directory: the files it names are read from there. */
  cwd: string;
  /** The operating-system user who ran it, and its process: for the server's log of operator commands. */
  user: string;
  pid: number;
}

/** One line of the answer. */
export type CommandFrame = { out: string } | { err: string } | { alive: true } | { exit: number };

/** The socket of DATA_DIR, or undefined when its path is too long to be a socket's. */
export function commandSocketPath(dataDir: string): string | undefined {
  const socket = path.join(dataDir, COMMAND_SOCKET);
  return Buffer.byteLength(socket) > MAX_SOCKET_PATH_BYTES ? undefined : socket;
}

export function encodeFrame(value: CommandRequest | CommandFrame): string {
  return `${JSON.stringify(value)}\n`;
}

/** A line longer than its bound: the peer is not speaking this protocol, or is hostile. */
export class LineTooLongError extends Error {
  constructor(limit: number) {
    super(`a line longer than ${limit} bytes`);
    this.name = 'LineTooLongError';
  }
}

/**
 * Splits what a socket reads into lines, holding at most `maxBytes` of an unfinished one: a peer that never
 * ends its line cannot make the reader hold more.
 */
export class LineReader {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly onLine: (line: string) => void,
  ) {}

  /** Throws LineTooLongError when a line outgrows the bound. */
  push(chunk: Buffer): void {
    let rest = chunk;
    for (let end = rest.indexOf(10); end !== -1; end = rest.indexOf(10)) {
      this.take(rest.subarray(0, end));
      const line = Buffer.concat(this.pending).toString('utf8');
      this.pending = [];
      this.pendingBytes = 0;
      rest = rest.subarray(end + 1);
      this.onLine(line);
    }
    if (rest.length > 0) this.take(rest);
  }

  private take(part: Buffer): void {
    this.pendingBytes += part.length;
    if (this.pendingBytes > this.maxBytes) throw new LineTooLongError(this.maxBytes);
    this.pending.push(part);
  }
}

function parseObject(line: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The request of a line, or undefined when it is not one. */
export function parseRequest(line: string): CommandRequest | undefined {
  const value = parseObject(line);
  if (value === undefined) return undefined;
  const { argv, cwd, user, pid } = value;
  if (!Array.isArray(argv) || argv.length > MAX_ARGUMENTS || !argv.every((arg) => typeof arg === 'string')) {
    return undefined;
  }
  if (typeof cwd !== 'string' || !path.isAbsolute(cwd) || typeof user !== 'string' || user.length > 256) {
    return undefined;
  }
  if (typeof pid !== 'number' || !Number.isSafeInteger(pid)) return undefined;
  return { argv: argv as string[], cwd, user, pid };
}

/** The frame of a line, or undefined when it is not one. */
export function parseFrame(line: string): CommandFrame | undefined {
  const value = parseObject(line);
  if (value === undefined) return undefined;
  if (typeof value.out === 'string') return { out: value.out };
  if (typeof value.err === 'string') return { err: value.err };
  if (value.alive === true) return { alive: true };
  if (typeof value.exit === 'number' && Number.isInteger(value.exit) && value.exit >= 0 && value.exit < 256) {
    return { exit: value.exit };
  }
  return undefined;
}
