import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { sampleTreePeak, type TreePeak } from './proc.js';

export const ROOT = fileURLToPath(new URL('../', import.meta.url));
const MAIN = `${ROOT}dist/main.js`;

/**
 * The service's environment: PATH and what the bench sets, nothing inherited (a stray ARGON2_* or
 * RATE_LIMIT_* in the shell would change what is measured). Argon2 keeps its real default cost; rate limits
 * are off, or the load itself would be answered with 429s.
 */
function serviceEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '',
    HOST: '127.0.0.1',
    RATE_LIMIT_ENABLED: 'false',
    LOG_LEVEL: 'info',
    ...env,
  };
}

/** Runs `accounts migrate` to completion (the real migration path, before seeding). */
export async function migrate(env: Record<string, string>): Promise<void> {
  await promisify(execFile)(process.execPath, [MAIN, 'migrate'], { cwd: ROOT, env: serviceEnv(env) });
}

/** Runs `accounts ARGS` to completion and returns what it printed (an operator command, e.g. `webhook add`). */
export async function accountsCommand(env: Record<string, string>, args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, [MAIN, ...args], {
    cwd: ROOT,
    env: serviceEnv(env),
  });
  return stdout;
}

/** A port that was free a moment ago on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return address.port;
}

/** Peak resident memory, MB: the process itself, and its whole tree (bench/proc.ts, `sampleTreePeak`). */
export type PeakRss = TreePeak;

export interface Service {
  url: string;
  pid: number;
  /** ms from the spawn to the first 200 of /healthz, to within the poll's interval. */
  readyMs: number;
  /** Read while the process runs (VmHWM of /proc, sampled through its life): its peak so far. */
  peakRss(): PeakRss | undefined;
  stop(): Promise<void>;
}

/**
 * Starts `node dist/main.js serve` and resolves once /healthz answers, asked every `pollMs` (finer where the
 * time to the first answer is what is measured).
 */
export function startService(env: Record<string, string>, { pollMs = 100 } = {}): Promise<Service> {
  // Request logs go to /dev/null: pino still formats every line (a real cost in production), but nobody in
  // this process has to read them while it is also generating the load.
  return startProcess([MAIN, 'serve'], serviceEnv(env), pollMs);
}

/** The bare Fastify limit (bench/bare-server.ts) on the same database as the service. */
export function startBareServer(
  env: Record<string, string>,
  options: { prepared?: boolean; hashInFlight?: number } = {},
): Promise<Service> {
  const bare: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    BARE_PREPARED: options.prepared ? '1' : '0',
  };
  // Its login and sign-up hash on libuv's threadpool: as many threads as hashes in flight (the SELECT limit
  // runs with libuv's default, as it always has).
  if (options.hashInFlight !== undefined) bare.UV_THREADPOOL_SIZE = String(options.hashInFlight);
  if (env.DATABASE_URL) bare.DATABASE_URL = env.DATABASE_URL;
  else bare.PGLITE_DIR = `${env.DATA_DIR}/pglite`;
  return startProcess([`${ROOT}dist-bench/bare-server.js`], bare);
}

/** How long a process may take to answer /healthz: minutes, not seconds, on a machine shared with other work. */
const STARTUP_MS = 90_000;

async function startProcess(args: string[], env: NodeJS.ProcessEnv, pollMs = 100): Promise<Service> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const spawnedAt = performance.now();
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const pid = child.pid ?? 0;
  const memory = sampleTreePeak(pid);
  const peakRss = (): PeakRss | undefined => memory.peak();
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = once(child, 'exit');
  child.once('exit', () => memory.stop());
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    await exited;
  };
  for (const deadline = Date.now() + STARTUP_MS; Date.now() < deadline; ) {
    if (child.exitCode !== null)
      throw new Error(`${args.join(' ')} exited with ${child.exitCode}: ${stderr}`);
    const up = await fetch(`${url}/healthz`).then(
      (response) => response.ok,
      () => false,
    );
    if (up) return { url, pid, readyMs: performance.now() - spawnedAt, peakRss, stop };
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  await stop();
  throw new Error(`${args.join(' ')} did not answer /healthz within ${STARTUP_MS / 1000} s: ${stderr}`);
}
