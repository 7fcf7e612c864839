import { lstat, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { handToServer } from '../../src/cli/command-client.js';
import type { CommandRequest } from '../../src/cli/command-protocol.js';
import { type CommandServer, listenForCommands } from '../../src/cli/command-server.js';
import { OperatorError } from '../../src/cli/output.js';
import type { Terminal } from '../../src/cli/terminal.js';

/** Connects, writes `data`, and resolves with everything the server answered before it hung up. */
function exchange(socketPath: string, data: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(socketPath);
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk;
    });
    // A server that hangs up on a peer mid-write is an answer too.
    socket.on('error', () => resolve(answer));
    socket.on('close', () => resolve(answer));
    socket.on('connect', () => socket.write(data));
  });
}

function capture(): Terminal & { out: string; err: string } {
  const terminal = {
    out: '',
    err: '',
    writeOut: (text: string) => {
      terminal.out += text;
    },
    writeErr: (text: string) => {
      terminal.err += text;
    },
  };
  return terminal;
}

const silentLog = { info: () => undefined, warn: () => undefined };

describe('the operator command socket', () => {
  let dataDir: string;
  let socketPath: string;
  let server: CommandServer | undefined;
  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'accounts-sock-'));
    socketPath = path.join(dataDir, 'accounts.sock');
  });
  afterEach(async () => {
    await server?.close(0);
    server = undefined;
    await rm(dataDir, { recursive: true, force: true });
  });

  const held = () => ({ dataDir, owner: 4242 });

  it('runs the command line in the server and relays its output, long output whole, and its exit code', async () => {
    const seen: CommandRequest[] = [];
    const long = `${'가'.repeat(40_000)}\n`;
    server = await listenForCommands({
      socketPath,
      log: silentLog,
      run: async (request, terminal) => {
        seen.push(request);
        terminal.writeOut(long);
        terminal.writeErr('a problem line\n');
        return 3;
      },
    });
    expect((await lstat(socketPath)).mode & 0o777).toBe(0o600);
    const terminal = capture();
    expect(await handToServer(held(), ['user', 'show', 'x y'], terminal)).toBe(3);
    expect(terminal.out).toBe(long);
    expect(terminal.err).toBe('a problem line\n');
    expect(seen).toEqual([
      { argv: ['user', 'show', 'x y'], cwd: process.cwd(), user: expect.any(String), pid: process.pid },
    ]);
  });

  it('answers nonsense with one line, cuts off a request past its bound, and goes on', async () => {
    server = await listenForCommands({ socketPath, log: silentLog, run: async () => 0 });
    expect(await exchange(socketPath, 'not json\n')).toBe(
      '{"err":"The accounts server could not read the command.\\n"}\n{"exit":1}\n',
    );
    expect(await exchange(socketPath, '{"argv":"user"}\n')).toBe(
      '{"err":"The accounts server could not read the command.\\n"}\n{"exit":1}\n',
    );
    expect(await exchange(socketPath, `{"argv":["${'a'.repeat(70_000)}`)).toBe('');
    expect(await handToServer(held(), ['user', 'list'], capture())).toBe(0);
  });

  it('refuses a command past the ones it runs at once', async () => {
    let started: () => void = () => undefined;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    let release: () => void = () => undefined;
    const blocked = new Promise<void>((resolve) => {
      release = resolve;
    });
    server = await listenForCommands({
      socketPath,
      log: silentLog,
      maxRunning: 1,
      run: async () => {
        started();
        await blocked;
        return 0;
      },
    });
    const first = handToServer(held(), ['user', 'list'], capture());
    await running;
    const second = capture();
    expect(await handToServer(held(), ['user', 'list'], second)).toBe(1);
    expect(second.err).toBe('The accounts server is running 1 commands already; try again.\n');
    release();
    expect(await first).toBe(0);
  });

  it('tells the command when the server stops before it finishes, and removes its socket', async () => {
    let started: () => void = () => undefined;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    server = await listenForCommands({
      socketPath,
      log: silentLog,
      run: async () => {
        started();
        return new Promise<number>(() => undefined);
      },
    });
    const handed = handToServer(held(), ['user', 'import', 'big.csv'], capture());
    await running;
    await server?.close(0);
    server = undefined;
    await expect(handed).rejects.toThrow(
      new OperatorError(
        'The accounts server (pid 4242) stopped before the command finished; it may have run in part',
      ),
    );
    await expect(lstat(socketPath)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('replaces a dead server socket, and leaves a file that is not a socket alone', async () => {
    // A server that died leaves its socket: here, one moved into place that nobody listens on any more.
    const dead = createServer();
    await new Promise<void>((resolve) => dead.listen(`${socketPath}.old`, resolve));
    await rename(`${socketPath}.old`, socketPath);
    await new Promise((resolve) => dead.close(resolve));
    expect((await lstat(socketPath)).isSocket()).toBe(true);
    server = await listenForCommands({ socketPath, log: silentLog, run: async () => 5 });
    expect(await handToServer(held(), ['user', 'list'], capture())).toBe(5);
    await server?.close(0);
    server = undefined;

    await writeFile(socketPath, 'an operator file');
    const warnings: string[] = [];
    const refused = await listenForCommands({
      socketPath,
      log: { info: () => undefined, warn: (_details, message) => warnings.push(message) },
      run: async () => 0,
    });
    expect(refused).toBeUndefined();
    expect(warnings).toEqual(['operator commands not taken: something that is not a socket has its name']);
    await expect(handToServer(held(), ['user', 'list'], capture())).rejects.toThrow(
      /^DATA_DIR .* is in use by accounts process 4242, which takes no commands/,
    );
  }, 20_000);
});
