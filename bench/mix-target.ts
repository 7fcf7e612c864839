import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { accessSync, constants } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { benchNginxConfig, requestsPerUpstream } from './nginx-config.js';
import { processTree } from './proc.js';
import { freePort, ROOT, type Service, startService } from './service.js';

/** What the run says, and exits with, when two instances are asked for and nginx is not there. */
export const NGINX_MISSING =
  'BENCH_MIX_INSTANCES=2 measures two instances behind nginx (deploy/nginx.conf), and no nginx was found ' +
  '(on PATH or in /usr/sbin). Install it, e.g. on Debian or Ubuntu: ' +
  '`apt-get install -y --no-install-recommends nginx-light` (as root, or with sudo), then run again.';

/** nginx's binary: on PATH, or where Debian puts it (/usr/sbin, which a non-root PATH often lacks). */
export function findNginx(): string | undefined {
  const directories = [...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/usr/local/sbin'];
  for (const directory of directories.filter((entry) => entry !== '')) {
    const file = path.join(directory, 'nginx');
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // Not here; the next directory.
    }
  }
  return undefined;
}

export interface Proxy {
  url: string;
  pid: number;
  /** Requests each instance answered so far, by address (nginx's access log). */
  requestsPerInstance(): Promise<Record<string, number>>;
  stop(): Promise<void>;
}

const STARTUP_MS = 30_000;
const STOP_MS = 10_000;

/** Stops a process and, should it not end in time, kills what is left of its tree (nginx's workers). */
async function stopTree(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const tree = processTree(child.pid ?? 0);
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = new Promise((resolve) => setTimeout(resolve, STOP_MS).unref());
  if ((await Promise.race([exited.then(() => true), timer.then(() => false)])) === false) {
    for (const pid of tree) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  }
}

/**
 * nginx in the foreground (`daemon off`), as the current user, with the configuration generated from
 * deploy/nginx.conf (bench/nginx-config.ts) and every file of its own in a fresh directory; resolves once a
 * request through it reaches an instance's /healthz.
 */
async function startNginx(binary: string, upstreamPorts: number[]): Promise<Proxy> {
  const prefix = await mkdtemp(path.join(tmpdir(), 'accounts-bench-nginx-'));
  let child: ChildProcess | undefined;
  const stop = async () => {
    if (child) await stopTree(child);
    await rm(prefix, { recursive: true, force: true });
  };
  try {
    // `nginx -V` prints its build (which modules it has) on stderr.
    const build = await promisify(execFile)(binary, ['-V']);
    const listenPort = await freePort();
    const configFile = path.join(prefix, 'nginx.conf');
    const deployed = await readFile(path.join(ROOT, 'deploy/nginx.conf'), 'utf8');
    await writeFile(
      configFile,
      benchNginxConfig(deployed, {
        listenPort,
        upstreamPorts,
        prefix,
        buildInfo: `${build.stdout}${build.stderr}`,
        runAsRoot: process.getuid?.() === 0,
      }),
    );
    // -e: the error log before the configuration is read (the compiled-in path may not be writable).
    const started = spawn(binary, ['-p', `${prefix}/`, '-e', `${prefix}/error.log`, '-c', configFile], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child = started;
    let stderr = '';
    started.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    const url = `http://127.0.0.1:${listenPort}`;
    for (const deadline = Date.now() + STARTUP_MS; Date.now() < deadline; ) {
      if (started.exitCode !== null) {
        const log = await readFile(path.join(prefix, 'error.log'), 'utf8').catch(() => '');
        throw new Error(`nginx exited with ${started.exitCode}: ${stderr}${log}`);
      }
      const up = await fetch(`${url}/healthz`).then(
        (response) => response.ok,
        () => false,
      );
      if (up) {
        return {
          url,
          pid: started.pid ?? 0,
          requestsPerInstance: async () =>
            requestsPerUpstream(await readFile(path.join(prefix, 'access.log'), 'utf8').catch(() => '')),
          stop,
        };
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`nginx did not pass /healthz on within ${STARTUP_MS / 1000} s: ${stderr}`);
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * What compose.yaml gives each instance beyond the one instance's environment: the shared Redis, the proxy
 * trusted for X-Forwarded-For (compose: nginx's fixed address; here nginx is on 127.0.0.1), and no migration
 * at start (compose's one-shot migrate job; here the seeding step, which migrates before any instance
 * starts). Redis holds only the rate-limit counters, which the bench switches off for every run (or the load
 * would be answered with 429s): with them off an instance opens no Redis connection, so what the two share
 * under this load is PostgreSQL and the image directory.
 */
const INSTANCE_ENV = {
  REDIS_URL: 'redis://127.0.0.1:6379',
  TRUST_PROXY: '127.0.0.1',
  MIGRATE_ON_START: 'false',
};

/** What the traffic mix drives: one instance, or two behind nginx. */
export interface MixTarget {
  /** Where the load goes: the instance itself, or nginx. */
  url: string;
  instances: Service[];
  proxy: Proxy | undefined;
  /** Stops nginx and every instance; safe to call more than once. */
  stop(): Promise<void>;
}

/**
 * Starts the service once, or (`count` 2) two instances on the same DATA_DIR and database and nginx in front.
 * Everything started is stopped again when a later start fails, when `stop` is called, and when the bench is
 * interrupted (SIGINT, SIGTERM) while it runs.
 */
export async function startMixTarget(count: 1 | 2, env: Record<string, string>): Promise<MixTarget> {
  if (count === 1) {
    const service = await startService(env);
    return { url: service.url, instances: [service], proxy: undefined, stop: () => service.stop() };
  }
  const binary = findNginx();
  if (binary === undefined) throw new Error(NGINX_MISSING);
  const instances: Service[] = [];
  let proxy: Proxy | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    void stop().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  const stop = async () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await Promise.allSettled([proxy?.stop(), ...instances.map((instance) => instance.stop())]);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    for (let index = 0; index < count; index++)
      instances.push(await startService({ ...env, ...INSTANCE_ENV }));
    proxy = await startNginx(
      binary,
      instances.map((instance) => Number(new URL(instance.url).port)),
    );
    return { url: proxy.url, instances, proxy, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
