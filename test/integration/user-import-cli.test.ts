import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { hash } from '@node-rs/bcrypt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { appCommands, type InProcessCommands, inProcessCommands } from '../helpers/commands.js';
import { type Backend, backends } from '../helpers/database.js';
import { registrationForm } from '../helpers/factories.js';
import { postForm } from '../helpers/http.js';
import type { CliResult } from '../helpers/process.js';

const CHEAP_ARGON2 = { ARGON2_MEMORY_KIB: '1024', ARGON2_TIME_COST: '1' };
const OLD_PASSWORD = 'password from the old app';

/** Exit 1, the report on stdout, and exactly one line on stderr (never a stack trace). */
function expectFailedLines(result: CliResult, stdout: string, stderr: string): void {
  expect(result.stderr).toBe(`${stderr}\n`);
  expect(result.stdout).toBe(stdout);
  expect(result.code).toBe(1);
}

describe('accounts user import --help', () => {
  it('describes the command, the formats and the exit status, and does nothing else', async () => {
    const result = await inProcessCommands({ DATA_DIR: '/nonexistent/accounts' }).run([
      'user',
      'import',
      '--help',
    ]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/^Usage: accounts user import \[options\] <file>\n/);
    expect(result.stdout).toContain('--dry-run');
    expect(result.stdout).toContain('(choices: "csv", "jsonl")');
    expect(result.stdout).toContain(
      'Exit status:\n  0  every line was imported or already present\n  1  some line failed',
    );
  });

  it.each([
    [['user', 'import'], "error: missing required argument 'file'"],
    [
      ['user', 'import', 'x.csv', '--format', 'xml'],
      /^error: option '--format <format>' argument 'xml' is invalid/,
    ],
  ])('accounts %j fails with one line', async (args, line) => {
    const result = await inProcessCommands({ DATA_DIR: '/nonexistent/accounts' }).run(args);
    expect(result.code).toBe(1);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    if (typeof line === 'string') expect(result.stderr).toBe(`${line}\n`);
    else expect(result.stderr).toMatch(line);
  });
});

// The imports run in this process on the app's database, and the app signs the imported users in. The
// hand-over to a running server, with a file named relative to the command's directory, is
// test/e2e/cli-beside-server's.
describe.each(backends)('%s: accounts user import end to end', (backend: Backend) => {
  const ctx = useTestApp(backend, CHEAP_ARGON2);
  let dir: string;
  let commands: InProcessCommands;
  let laravelHash: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'accounts-import-'));
    commands = appCommands(ctx, CHEAP_ARGON2);
    laravelHash = `$2y$${(await hash(OLD_PASSWORD, 4)).slice(4)}`;
  });
  afterAll(async () => {
    await commands?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const cli = (args: string[]) => commands.run(args);
  const login = async (email: string, password: string) => {
    const res = await postForm(ctx.app, '/v1/auth/login/email', { email, password });
    return { status: res.statusCode, body: res.json() as { data: { user?: { username: string } } } };
  };

  it('imports a CSV file, reports its bad lines, changes nothing when run again, and the users sign in', async () => {
    const existing = registrationForm();
    const registered = await postForm(ctx.app, '/v1/auth/register', existing);
    expect(registered.statusCode).toBe(200);
    const csv = path.join(dir, 'users.csv');
    await writeFile(
      csv,
      '\uFEFFid,name,email,username,slug,gender,created_at,password,remember_token\r\n' +
        `1,"Kim, Minji",minji@old.example.com,minji,minji-kim,0,2018-05-06 07:08:09,${laravelHash},\r\n` +
        `2,Lee,not-an-email,lee,lee-old,1,2018-05-06 07:08:09,${laravelHash},\r\n` +
        '\r\n' +
        `3,Park,park@old.example.com,박지성,park-js,1,2019-01-01T00:00:00Z,${laravelHash},tok\r\n` +
        `4,Choi,${existing.email},choi,choi-old,1,2019-01-01 00:00:00,${laravelHash},\r\n` +
        `5,Jung,jung@old.example.com,jung,jung-old,1,2019-01-01 00:00:00,md5-of-something,\r\n` +
        `6,Twin,MINJI@old.example.com,minji2,minji-two,0,2019-01-01 00:00:00,${laravelHash},\r\n`,
    );
    const report = (summary: string) =>
      'line 3: The email must be a valid email address.\n' +
      'line 6: The email has already been taken (in the database).\n' +
      'line 7: The password must be a bcrypt hash of the old app ($2y$, $2a$ or $2b$, cost 04 to 16, 60 characters).\n' +
      `line 8: The email has already been taken (${summary.startsWith('Imported 0') ? 'in the database' : 'by an earlier line of this file'}).\n` +
      `${summary}\n`;
    const failed = `4 lines of ${csv} failed (listed above)`;
    expectFailedLines(
      await cli(['user', 'import', '--dry-run', csv]),
      report('Dry run, nothing written: would import 2 users, 0 already present, 4 lines failed.'),
      failed,
    );
    expect((await cli(['user', 'show', 'minji@old.example.com'])).stderr).toBe(
      'User "minji@old.example.com" not found\n',
    );

    expectFailedLines(
      await cli(['user', 'import', csv]),
      report('Imported 2 users, 0 already present, 4 lines failed.'),
      failed,
    );
    const shown = JSON.parse((await cli(['user', 'show', 'minji', '--json'])).stdout) as Record<
      string,
      unknown
    >;
    expect(shown).toMatchObject({
      email: 'minji@old.example.com',
      username: 'minji',
      slug: 'minji-kim',
      gender: 0,
      has_password: true,
      created_at: '2018-05-06T07:08:09.000Z',
    });

    expectFailedLines(
      await cli(['user', 'import', csv]),
      report('Imported 0 users, 2 already present, 4 lines failed.'),
      failed,
    );

    // An imported (bcrypt) password refuses a wrong one exactly as any login does.
    expect(await login('minji@old.example.com', 'not the password')).toEqual({
      status: 401,
      body: {
        meta: { code: 401, error_type: 'Unauthorized', error_message: 'The login credentials are invalid.' },
        data: { status: 'authentication_failed' },
      },
    });
    const signedIn = await login('minji@old.example.com', OLD_PASSWORD);
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.data.user?.username).toBe('minji');
    expect((await login('park@old.example.com', OLD_PASSWORD)).body.data.user?.username).toBe('박지성');
    // Signed in again after the upgrade to argon2id: the same password still works.
    expect((await login('minji@old.example.com', OLD_PASSWORD)).status).toBe(200);
  });

  it('imports JSON lines, found by the first byte or named by --format; a clean file exits 0', async () => {
    const lines = [
      JSON.stringify({
        email: 'han@old.example.com',
        username: 'han',
        slug: 'han-old',
        gender: 1,
        created_at: '2017-01-02 03:04:05',
        password: laravelHash,
      }),
      '',
      JSON.stringify({
        email: 'seo@old.example.com',
        username: 'seo',
        slug: 'seo-old',
        gender: 0,
        created_at: '2017-01-02 03:04:05',
        password: laravelHash,
      }),
    ];
    const export1 = path.join(dir, 'export.txt');
    await writeFile(export1, `${lines.join('\n')}\n`);
    const first = await cli(['user', 'import', export1]);
    expect(first).toEqual({
      code: 0,
      stdout: 'Imported 2 users, 0 already present, 0 lines failed.\n',
      stderr: '',
    });
    const again = await cli(['user', 'import', '--format', 'jsonl', export1]);
    expect(again).toEqual({
      code: 0,
      stdout: 'Imported 0 users, 2 already present, 0 lines failed.\n',
      stderr: '',
    });
    // Read as CSV, the same file has no header: one line, nothing imported.
    const asCsv = await cli(['user', 'import', '--format', 'csv', export1]);
    expect(asCsv.code).toBe(1);
    expect(asCsv.stdout).toBe('');
    expect(asCsv.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(asCsv.stderr).toMatch(/^.*export\.txt: The (header|file)/);
  });

  it('a missing file or a directory is one line', async () => {
    for (const [file, reason] of [
      [path.join(dir, 'missing.csv'), 'ENOENT'],
      [dir, 'not a file'],
    ]) {
      const result = await cli(['user', 'import', file as string]);
      expect(result).toEqual({ code: 1, stdout: '', stderr: `Cannot read ${file}: ${reason}\n` });
    }
  });
});
