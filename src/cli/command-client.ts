import { lstat } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  commandSocketPath,
  encodeFrame,
  HANDOVER_WAIT_MS,
  LineReader,
  MAX_FRAME_BYTES,
  parseFrame,
  SILENCE_TIMEOUT_MS,
} from './command-protocol.js';
import { osUserName } from './os-user.js';
import { OperatorError } from './output.js';
import type { Terminal } from './terminal.js';

/** The server a command was handed to: DATA_DIR and the process holding it. */
export interface HeldDataDir {
  dataDir: string;
  owner: number;
}

const RETRY_MS = 100;

/**
 * Connects to DATA_DIR's socket: a socket of this user's (never hands a command line to another user's
 * process), retried for up to HANDOVER_WAIT_MS while the server holding DATA_DIR is still starting.
 */
async function connectToServer(held: HeldDataDir): Promise<Socket> {
  const socketPath = commandSocketPath(held.dataDir);
  const refused = new OperatorError(
    `DATA_DIR ${held.dataDir} is in use by accounts process ${held.owner}, which takes no commands (another ` +
      'command, or a server still starting): try again when it is done, or set DATABASE_URL to run commands ' +
      'beside running servers',
  );
  if (socketPath === undefined) throw refused;
  const deadline = Date.now() + HANDOVER_WAIT_MS;
  for (;;) {
    const info = await lstat(socketPath).catch(() => undefined);
    if (info?.isSocket() && (process.getuid === undefined || info.uid === process.getuid())) {
      const socket = await new Promise<Socket | undefined>((resolve) => {
        const attempt = connect(socketPath);
        const timer = setTimeout(() => attempt.destroy(), Math.max(deadline - Date.now(), RETRY_MS));
        attempt.once('connect', () => {
          clearTimeout(timer);
          resolve(attempt);
        });
        attempt.once('error', () => {
          clearTimeout(timer);
          resolve(undefined);
        });
        attempt.once('close', () => resolve(undefined));
      });
      if (socket !== undefined) return socket;
    }
    if (Date.now() >= deadline) throw refused;
    await sleep(RETRY_MS);
  }
}

/**
 * Hands `argv` to the server holding DATA_DIR and relays what the command writes as it writes it; resolves
 * to the command's exit code. Every wait is bounded: the connection (HANDOVER_WAIT_MS), and the silence
 * between two lines (SILENCE_TIMEOUT_MS; a running command says it is alive more often than that).
 */
export async function handToServer(held: HeldDataDir, argv: string[], terminal: Terminal): Promise<number> {
  const socket = await connectToServer(held);
  const server = `The accounts server (pid ${held.owner})`;
  return new Promise<number>((resolve, reject) => {
    let settled = false;
    const settle = (outcome: number | OperatorError) => {
      if (settled) return;
      settled = true;
      clearTimeout(silence);
      socket.destroy();
      if (typeof outcome === 'number') resolve(outcome);
      else reject(outcome);
    };
    let silence = setTimeout(() => undefined, 0);
    const listen = () => {
      clearTimeout(silence);
      if (settled) return;
      silence = setTimeout(
        () => settle(new OperatorError(`${server} did not answer for 30 s; the command may have run`)),
        SILENCE_TIMEOUT_MS,
      );
    };
    const reader = new LineReader(MAX_FRAME_BYTES, (line) => {
      const frame = parseFrame(line);
      if (frame === undefined) settle(new OperatorError(`${server} sent an answer that is not one`));
      else if ('out' in frame) terminal.writeOut(frame.out);
      else if ('err' in frame) terminal.writeErr(frame.err);
      else if ('exit' in frame) settle(frame.exit);
      listen();
    });
    socket.on('data', (chunk: Buffer) => {
      try {
        reader.push(chunk);
      } catch {
        settle(new OperatorError(`${server} sent an answer that is not one`));
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () =>
      settle(new OperatorError(`${server} stopped before the command finished; it may have run in part`)),
    );
    listen();
    socket.write(encodeFrame({ argv, cwd: process.cwd(), user: osUserName(), pid: process.pid }));
  });
}
