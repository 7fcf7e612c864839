import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MAIN = `${ROOT}dist/main.js`;

/** The environment of a child: this one's PATH and nothing else that could leak in (DATABASE_URL above all). */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '', ...env };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `accounts <args>` to completion (in the repository, or in `cwd`). */
export async function runCli(
  args: string[],
  env: Record<string, string> = {},
  { cwd = ROOT }: { cwd?: string } = {},
): Promise<CliResult> {
  const child = spawn(process.execPath, [MAIN, ...args], { cwd, env: childEnv(env) });
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
  /**
   * Resolves with the output once `test` holds of it. A log line the server writes as it answers can reach
   * this process after the answer does: its stdout is a pipe of its own.
   */
  untilOutput(test: (output: string) => boolean, timeoutMs?: number): Promise<string>;
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
  const waiters = new Set<() => void>();
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
  // After the listener above that gathers the output, so a waiter sees the chunk that woke it.
  child.stdout.on('data', () => {
    for (const wake of waiters) wake();
  });
  return {
    url,
    child,
    output: () => stdout,
    untilOutput: (test, timeoutMs = 10_000) =>
      new Promise<string>((resolve, reject) => {
        const check = () => {
          if (!test(stdout)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(stdout);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(`accounts serve did not write what was awaited within ${timeoutMs} ms:\n${stdout}`),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null) child.kill(signal);
      const [code] = await exited;
      return code;
    },
  };
}

/** Exit 1 with exactly one line on stderr (never a stack trace) and nothing on stdout. */
export function expectOneLineFailure(result: CliResult, line: string | RegExp): void {
  expect(result.code, result.stderr).toBe(1);
  expect(result.stdout).toBe('');
  expect(result.stderr.endsWith('\n')).toBe(true);
  expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(result.stderr).not.toMatch(/\n\s+at /);
  if (typeof line === 'string') expect(result.stderr).toBe(`${line}\n`);
  else expect(result.stderr).toMatch(line);
}
