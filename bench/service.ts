import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

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

/** A port that was free a moment ago on 127.0.0.1. */
async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return address.port;
}

export interface Service {
  url: string;
  stop(): Promise<void>;
}

/** Starts `node dist/main.js serve` and resolves once /healthz answers. */
export async function startService(env: Record<string, string>): Promise<Service> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  // Request logs go to /dev/null: pino still formats every line (a real cost in production), but nobody in
  // this process has to read them while it is also generating the load.
  const child: ChildProcess = spawn(process.execPath, [MAIN, 'serve'], {
    cwd: ROOT,
    env: serviceEnv({ ...env, PORT: String(port) }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = once(child, 'exit');
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    await exited;
  };
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; ) {
    if (child.exitCode !== null) throw new Error(`accounts serve exited with ${child.exitCode}: ${stderr}`);
    const up = await fetch(`${url}/healthz`).then(
      (response) => response.ok,
      () => false,
    );
    if (up) return { url, stop };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await stop();
  throw new Error(`accounts serve did not answer /healthz within 30 s: ${stderr}`);
}
