import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inProcessCommands } from '../helpers/commands.js';
import { expectOneLineFailure, runCli } from '../helpers/process.js';

describe('accounts operator commands: help and bad arguments', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'accounts-cli-'));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });
  // The command line's own answers (help, usage errors) need no process; one of each is checked in one below.
  const cli = (args: string[]) => inProcessCommands({ DATA_DIR: dataDir }).run(args);

  it.each([
    ['banner', 'add'],
    ['banner', 'list'],
    ['banner', 'remove'],
    ['inspirer', 'add'],
    ['inspirer', 'remove'],
    ['inspirer', 'list'],
    ['user', 'show'],
    ['user', 'disable'],
    ['user', 'enable'],
    ['user', 'delete'],
    ['token', 'revoke'],
    ['post', 'remove'],
  ])('accounts %s %s --help describes the command', async (group, command) => {
    const result = await cli([group, command, '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^Usage: accounts ${group} ${command} `));
    expect(result.stderr).toBe('');
  });

  it.each(['banner', 'inspirer', 'user', 'token', 'post'])(
    'accounts %s --help lists its commands',
    async (group) => {
      const result = await cli([group, '--help']);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(new RegExp(`^Usage: accounts ${group} `));
    },
  );

  it('prints its version, and the binary exits with the code of a usage error', async () => {
    expect(await cli(['--version'])).toEqual({ code: 0, stdout: '0.2.0\n', stderr: '' });
    expect(await runCli(['--version'], { DATA_DIR: dataDir })).toEqual({
      code: 0,
      stdout: '0.2.0\n',
      stderr: '',
    });
    expectOneLineFailure(
      await runCli(['banner', 'list', '--colour'], { DATA_DIR: dataDir }),
      "error: unknown option '--colour'",
    );
  });

  it.each([
    [['banner', 'add', '--title', 'x'], "error: required option '--image-url <url>' not specified"],
    [['banner', 'list', '--colour'], "error: unknown option '--colour'"],
    [['banner', 'remove'], "error: missing required argument 'id'"],
    [['bogus'], "error: unknown command 'bogus'"],
    [['usr', 'show', 'kim'], "error: unknown command 'usr' (Did you mean user?)"],
    [['banner', 'rmeove', 'x'], "error: unknown command 'rmeove' (Did you mean remove?)"],
    [['inspirer', 'add'], "error: missing required argument 'user'"],
    [['inspirer', 'remove', 'a', 'b'], /^error: too many arguments for 'remove'/],
    [['inspirer', 'list', '--all'], "error: unknown option '--all'"],
    [['user', 'show'], "error: missing required argument 'user'"],
    [['user', 'disable'], "error: missing required argument 'user'"],
    [['user', 'enable', '--now', 'x'], "error: unknown option '--now'"],
    [['token', 'revoke'], 'Give a token id, or --user USER --all'],
    [['token', 'revoke', '--user', 'kim'], '--user revokes every token of the user: add --all to confirm'],
    [
      ['token', 'revoke', 'id', '--user', 'kim', '--all'],
      'Give either a token id or --user USER --all, not both',
    ],
  ])('accounts %j fails with one line', async (args, line) => {
    expectOneLineFailure(await cli(args), line);
  });
});
