import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { lstat, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secretsKeyNotice } from '../../src/db/secrets-key-file.js';
import { registrationForm } from '../helpers/factories.js';
import { type RunningService, runCli, startService } from '../helpers/process.js';
import { type ProcessStore, processStore } from '../helpers/process-store.js';

/** The JSON log lines a process wrote. */
function logLines(output: string): Array<{ msg: string } & Record<string, unknown>> {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { msg: string });
}

// The embedded database only: with DATABASE_URL commands open PostgreSQL beside any number of servers.
// The socket's protocol, its bounds and hostile peers are test/unit/command-socket.test.ts's.
describe('accounts commands beside a running embedded server', () => {
  let store: ProcessStore;
  let service: RunningService | undefined;

  beforeAll(async () => {
    // No SECRETS_KEY: the server makes one in DATA_DIR, and webhooks work.
    store = await processStore('pglite', {
      ARGON2_MEMORY_KIB: '1024',
      ARGON2_TIME_COST: '1',
      WEBHOOK_ALLOW_PRIVATE: 'true',
    });
  });
  afterAll(async () => {
    await service?.stop('SIGKILL');
    await store?.cleanup();
  });

  const cli = (args: string[]) => runCli(args, store.env);

  it('hands commands to the server with their output and exit codes, and runs them alone after a crash', async () => {
    const dataDir = store.env.DATA_DIR as string;
    const socketPath = path.join(dataDir, 'accounts.sock');
    // What a server that crashed leaves: its socket, and its lock naming a process that is gone.
    const crashed = spawn(process.execPath, [
      '-e',
      `require('node:net').createServer().listen(${JSON.stringify(socketPath)}, () => console.log('ready'))`,
    ]);
    await once(crashed.stdout, 'data');
    crashed.kill('SIGKILL');
    await once(crashed, 'exit');
    await writeFile(path.join(dataDir, 'pglite.lock'), String(crashed.pid));
    expect((await lstat(socketPath)).isSocket()).toBe(true);

    service = await startService(store.env);
    const keyFile = path.join(dataDir, 'secrets.key');
    expect(logLines(service.output()).map((line) => line.msg)).toContain(secretsKeyNotice(keyFile));
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
    const socket = await lstat(socketPath);
    expect(socket.isSocket()).toBe(true);
    expect(socket.mode & 0o777).toBe(0o600);

    const fields = registrationForm();
    const registered = await fetch(`${service.url}/v1/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
    expect(registered.status).toBe(200);

    const added = await cli(['webhook', 'add', 'http://127.0.0.1:9/hooks', '--json']);
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    expect(JSON.parse(added.stdout)).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      url: 'http://127.0.0.1:9/hooks',
      events: null,
      secret: expect.stringMatching(/^whsec_/),
    });
    const listed = await cli(['user', 'list']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(fields.email as string);
    const shown = await cli(['user', 'show', fields.email as string]);
    expect(shown.stderr).toBe('');
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/^id +[0-9a-f-]{36}\n/);
    expect(shown.stdout).toContain(`${fields.email}\n`);
    expect(await cli(['user', 'show', 'nobody@example.com'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'User "nobody@example.com" not found\n',
    });
    // A usage error is the command line's own, as before: nothing reaches the server.
    expect(await cli(['user', 'show'])).toEqual({
      code: 1,
      stdout: '',
      stderr: "error: missing required argument 'user'\n",
    });
    // The server reads a file the command names from the command's own directory, and the command exits
    // with the import's code (1: a line failed).
    const folder = await mkdtemp(path.join(tmpdir(), 'accounts-import-'));
    await writeFile(
      path.join(folder, 'users.csv'),
      'id,name,email,username,slug,gender,created_at,password,remember_token\n' +
        '1,Lee,not-an-email,lee,lee-old,1,2018-05-06 07:08:09,,\n',
    );
    const imported = await runCli(['user', 'import', '--dry-run', 'users.csv'], store.env, { cwd: folder });
    await rm(folder, { recursive: true, force: true });
    expect(imported).toEqual({
      code: 1,
      stdout:
        'line 2: The email must be a valid email address. The password field is required.\n' +
        'Dry run, nothing written: would import 0 users, 0 already present, 1 line failed.\n',
      stderr: '1 line of users.csv failed (listed above)\n',
    });
    const handedLines = (output: string) =>
      logLines(output).filter((line) => line.msg === 'operator command');
    const handed = handedLines(await service.untilOutput((output) => handedLines(output).length >= 5));
    expect(handed.map(({ command, exit }) => [command, exit])).toEqual([
      ['webhook add', 0],
      ['user list', 0],
      ['user show', 0],
      ['user show', 1],
      ['user import', 1],
    ]);
    // The user commands the server ran wrote their access records, in one chain.
    const verified = await cli(['audit', 'verify', '--json']);
    expect(verified.code, verified.stderr).toBe(0);
    expect(JSON.parse(verified.stdout)).toMatchObject({ ok: true, records: 4 });

    // The server crashes: the command opens the database itself, beside the socket left behind.
    expect(await service.stop('SIGKILL')).toBeNull();
    service = undefined;
    expect((await lstat(socketPath)).isSocket()).toBe(true);
    expect(await cli(['user', 'show', fields.email as string])).toEqual(shown);
    expect(JSON.parse((await cli(['audit', 'verify', '--json'])).stdout)).toMatchObject({
      ok: true,
      records: 5,
    });
  }, 600_000);
});
