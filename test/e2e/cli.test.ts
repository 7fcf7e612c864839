import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadMigrations } from '../../src/db/migrate.js';
import { inProcessCommands } from '../helpers/commands.js';
import { type Backend, backends, processBackend } from '../helpers/database.js';
import { registrationForm } from '../helpers/factories.js';
import { expectOneLineFailure, type RunningService, runCli, startService } from '../helpers/process.js';
import { olderEmbeddedDatabase, type ProcessStore, processStore } from '../helpers/process-store.js';

/** What `accounts migrate` prints when it applies `versions` (all of them by default: a fresh server). */
async function applied(versions?: string[]): Promise<string> {
  const all = (await loadMigrations()).map((migration) => migration.version);
  return `Applied: ${(versions ?? all).join(', ')}\n`;
}

/**
 * A database that lacks migrations: a fresh PostgreSQL one lacks them all; a new DATA_DIR is already a copy
 * of the migrated template, so the embedded one is made as an older build left it. Resolves to what
 * `accounts migrate` then prints.
 */
async function unmigrated(backend: Backend, store: ProcessStore): Promise<string> {
  if (backend === 'postgres') return applied();
  return applied(await olderEmbeddedDatabase(store.env.DATA_DIR as string));
}

const CHEAP_ARGON2 = { ARGON2_MEMORY_KIB: '1024', ARGON2_TIME_COST: '1' };

async function post(
  url: string,
  body: Record<string, string | undefined>,
  headers: Record<string, string> = {},
) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(body as Record<string, string>).toString(),
  });
  return {
    status: res.status,
    json: (await res.json()) as { meta: { code: number }; data: Record<string, unknown> },
  };
}

describe('accounts command line', () => {
  // What the command line answers is the same in this process; the binary's own exit is checked once here.
  const cli = (args: string[]) => inProcessCommands({}).run(args);

  it('prints usage and fails when given no command', async () => {
    const result = await runCli([]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^Usage: accounts <command>/);
    expect(result.stdout).toContain('serve');
    expect(result.stdout).toContain('migrate');
  });

  it.each(['help', '--help', '-h'])('prints usage and succeeds for %s', async (flag) => {
    const result = await cli([flag]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: accounts <command>/);
  });

  it('names an unknown command in one line and fails', async () => {
    expectOneLineFailure(await cli(['frobnicate']), "error: unknown command 'frobnicate'");
  });

  it('stops on a bad setting with one line naming the variable', async () => {
    const result = await runCli(['serve'], { PORT: '99999' });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'Invalid configuration: PORT must be a whole number from 0 to 65535 (got "99999")\n',
    );
    expect(result.stdout).toBe('');
  });

  it('never prints a refused DATABASE_URL, which may hold a password', async () => {
    const result = await inProcessCommands({
      DATABASE_URL: 'mysql://root:hunter2-secret@db/accounts',
    }).run(['migrate']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'Invalid configuration: DATABASE_URL must be a postgres:// or postgresql:// URL\n',
    );
  });
});

// Each test starts real processes, and a fresh embedded database takes a PGlite start-up of its own: on a busy
// two-core machine that alone has taken over 30 s, so these get more room than unit tests.
describe.each(backends)('%s: accounts migrate and serve', { timeout: 180_000 }, (backend) => {
  let store: ProcessStore;
  const running: RunningService[] = [];

  beforeAll(async () => {
    store = await processStore(backend, CHEAP_ARGON2);
  });

  afterEach(async () => {
    await Promise.all(running.splice(0).map((service) => service.stop('SIGKILL')));
  });

  afterAll(async () => {
    await store?.cleanup();
  });

  // First, on the store as a new server (or an older build) leaves it: the later tests use what it migrated.
  it('leaves the schema alone when MIGRATE_ON_START=false; migrate applies it once, then has nothing to do', async () => {
    const expected = await unmigrated(backend, store);
    const service = await startService({ ...store.env, MIGRATE_ON_START: 'false' });
    running.push(service);
    // Not ready without its schema, so a load balancer keeps it out of rotation.
    expect((await fetch(`${service.url}/readyz`)).status).toBe(503);
    // An empty schema (a new server database) has no table to answer from; an older one still answers.
    if (backend === 'postgres') {
      const res = await post(`${service.url}/v1/validate/email`, { email: 'a@b.co' });
      expect(res).toEqual({
        status: 500,
        json: {
          meta: { code: 500, error_type: 'InternalServerError', error_message: 'Internal Server Error' },
          data: [],
        },
      });
    }
    expect(await service.stop()).toBe(0);
    running.pop();
    const first = await runCli(['migrate'], store.env);
    expect(first).toEqual({ code: 0, stdout: expected, stderr: '' });
    const second = await runCli(['migrate'], store.env);
    expect(second).toEqual({ code: 0, stdout: 'Nothing to migrate.\n', stderr: '' });
  });

  it('serves the API, never logs a password or a token, keeps accounts across a restart, and exits 0 on SIGTERM', async () => {
    const first = await startService(store.env);
    running.push(first);
    expect(await (await fetch(`${first.url}/healthz`)).json()).toEqual({
      meta: { code: 200 },
      data: { status: 'ok' },
    });
    expect(await (await fetch(`${first.url}/readyz`)).json()).toEqual({
      meta: { code: 200 },
      data: { status: 'ready' },
    });
    const body = registrationForm();
    const registered = await post(`${first.url}/v1/auth/register`, body, { 'x-request-id': 'e2e-log-check' });
    expect(registered.status).toBe(200);
    const token = (registered.json.data.user as { api_token: string }).api_token;
    await fetch(`${first.url}/v1/user/get?api_token=${token}`);
    await fetch(`${first.url}/v1/user/get`, { headers: { authorization: `Bearer ${token}` } });
    await post(`${first.url}/v1/auth/login/email`, { email: body.email, password: `${body.password}-wrong` });
    expect(await first.stop('SIGTERM')).toBe(0);
    running.pop();
    const log = first.output();
    expect(log).toContain('e2e-log-check');
    expect(log).toContain('"url":"/v1/user/get?api_token"');
    expect(log).not.toContain(body.password);
    expect(log).not.toContain(token);

    const second = await startService(store.env);
    running.push(second);
    const login = await post(`${second.url}/dev/auth/login/email`, {
      email: body.email,
      password: body.password,
    });
    expect(login.status).toBe(200);
    expect((login.json.data.user as { id: string }).id).toBe(
      (registered.json.data.user as { id: string }).id,
    );
    expect(await second.stop('SIGINT')).toBe(0);
    running.pop();
  });
});

// Signals, drains and ports are the process's, whatever its database: on one backend.
describe(`${processBackend}: the serving process`, { timeout: 180_000 }, () => {
  const backend = processBackend;
  let store: ProcessStore;
  const running: RunningService[] = [];

  beforeAll(async () => {
    store = await processStore(backend, CHEAP_ARGON2, { migrated: true });
  });

  afterEach(async () => {
    await Promise.all(running.splice(0).map((service) => service.stop('SIGKILL')));
  });

  afterAll(async () => {
    await store?.cleanup();
  });

  it('exits 1 when its port is taken', async () => {
    const service = await startService(store.env);
    running.push(service);
    const other = await processStore(backend, CHEAP_ARGON2);
    try {
      const result = await runCli(['serve'], {
        ...other.env,
        PORT: new URL(service.url).port,
        LOG_LEVEL: 'silent',
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('EADDRINUSE');
    } finally {
      await other.cleanup();
    }
  });

  it('finishes a request in flight before exiting on SIGTERM', async () => {
    // A costly hash keeps the registration in flight long enough for the signal to arrive during it.
    // LOG_LEVEL=debug: the request is seen in flight by its "incoming request" line (the access line comes
    // only once it has been answered).
    const service = await startService({
      ...store.env,
      ARGON2_MEMORY_KIB: '65536',
      ARGON2_TIME_COST: '8',
      // The hash runs at a lower priority: on a busy machine it may take longer than the default 10 s bound,
      // whose 503 is not what this test is about.
      HASH_TIMEOUT_MS: '120000',
      LOG_LEVEL: 'debug',
    });
    running.push(service);
    const body = registrationForm();
    const pending = post(`${service.url}/v1/auth/register`, body, { 'x-request-id': 'e2e-in-flight' });
    await new Promise<void>((resolve) => {
      const check = () => (service.output().includes('e2e-in-flight') ? resolve() : setTimeout(check, 5));
      check();
    });
    const exit = service.stop('SIGTERM');
    const response = await pending;
    expect(response.status).toBe(200);
    expect(await exit).toBe(0);
    running.pop();
  });

  // Past the bound the connections still open are closed and the exit is 0 (a slow client must not
  // turn a deploy into an exit 1); only a database that will not close makes it 1.
  it('cuts a drain off after SHUTDOWN_TIMEOUT_MS and still exits 0', async () => {
    const service = await startService({
      ...store.env,
      SHUTDOWN_TIMEOUT_MS: '0',
      ARGON2_MEMORY_KIB: '65536',
      ARGON2_TIME_COST: '8',
      // The hash runs at a lower priority: on a busy machine it may take longer than the default 10 s bound,
      // whose 503 is not what this test is about.
      HASH_TIMEOUT_MS: '120000',
      LOG_LEVEL: 'debug',
    });
    running.push(service);
    const pending = post(`${service.url}/v1/auth/register`, registrationForm(), {
      'x-request-id': 'e2e-cut-off',
    }).catch((error: unknown) => error);
    await new Promise<void>((resolve) => {
      const check = () => (service.output().includes('e2e-cut-off') ? resolve() : setTimeout(check, 5));
      check();
    });
    expect(await service.stop('SIGTERM')).toBe(0);
    running.pop();
    expect(service.output()).toContain('shutdown drain timed out; closing the connections still open');
    await pending;
  });
});
