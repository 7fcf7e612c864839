import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MAIN = `${ROOT}dist/main.js`;

/**
 * Compiles src/ to dist/ as `npm run build` does, so the processes under test run today's code. It compiles
 * aside and moves the files into dist/ one by one (a rename is atomic): a process another test file starts
 * meanwhile reads each module whole, never half-written by tsc.
 */
export async function buildDist(): Promise<void> {
  const staging = `${ROOT}.dist-staging-${process.pid}`;
  try {
    await promisify(execFile)(
      process.execPath,
      [`${ROOT}node_modules/typescript/bin/tsc`, '-p', 'tsconfig.build.json', '--outDir', staging],
      { cwd: ROOT },
    );
    for (const file of await readdir(staging, { recursive: true })) {
      if (!(await stat(path.join(staging, file))).isFile()) continue;
      await mkdir(path.dirname(path.join(ROOT, 'dist', file)), { recursive: true });
      await rename(path.join(staging, file), path.join(ROOT, 'dist', file));
    }
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** The environment of a child: this one's PATH and nothing else that could leak in (DATABASE_URL above all). */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '', ...env };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `accounts <args>` to completion. */
export async function runCli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const child = spawn(process.execPath, [MAIN, ...args], { cwd: ROOT, env: childEnv(env) });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}

export interface RunningService {
  url: string;
  child: ChildProcess;
  /** Everything the process has written to stdout so far (its JSON log lines). */
  output(): string;
  /** Sends the signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `accounts serve` and resolves once it logs the address it listens on. */
export async function startService(env: Record<string, string>): Promise<RunningService> {
  const child = spawn(process.execPath, [MAIN, 'serve'], {
    cwd: ROOT,
    env: childEnv({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env }),
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = once(child, 'exit') as Promise<[number | null]>;
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      const match = /accounts listening on (http:\/\/[^"\s]+)/.exec(stdout);
      if (match?.[1]) resolve(match[1]);
    });
    void exited.then(([code]) => reject(new Error(`accounts serve exited with ${code}: ${stderr}${stdout}`)));
  });
  return {
    url,
    child,
    output: () => stdout,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null) child.kill(signal);
      const [code] = await exited;
      return code;
    },
  };
}
