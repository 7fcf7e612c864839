import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type InProcessCommands, inProcessCommands } from '../helpers/commands.js';
import { backends } from '../helpers/database.js';
import { expectOneLineFailure } from '../helpers/process.js';
import { type ProcessStore, processStore } from '../helpers/process-store.js';

// `accounts migrate` is a process; the commands under test run in this process on one open database.
describe.each(backends)('%s: accounts consent', (backend) => {
  let store: ProcessStore;
  let commands: InProcessCommands;

  beforeAll(async () => {
    store = await processStore(backend, {}, { migrated: true });
    commands = inProcessCommands(store.env);
  });
  afterAll(async () => {
    await commands?.close();
    await store?.cleanup();
  });

  const cli = (args: string[]) => commands.run(args);

  it.each(['publish', 'list', 'history', 'remind'])(
    'accounts consent %s --help describes the command',
    async (command) => {
      const result = await cli(['consent', command, '--help']);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(new RegExp(`^Usage: accounts consent ${command} `));
    },
  );

  it('shows no empty default for the repeatable options of publish', async () => {
    const help = (await cli(['consent', 'publish', '--help'])).stdout;
    for (const option of ['--lang <lang>', '--title <text>', '--url <url>', '--body <file>']) {
      expect(help).toContain(option);
    }
    expect(help).not.toContain('default:');
  });

  it('lists the documents of a fresh install, publishes a new version, and refuses an older one', async () => {
    const fresh = JSON.parse((await cli(['consent', 'list', '--json'])).stdout) as Array<{ key: string }>;
    expect(fresh.map((doc) => doc.key)).toEqual([
      'privacy',
      'terms',
      'marketing_email',
      'marketing_push',
      'marketing_sms',
      'night_push',
    ]);
    const published = await cli([
      'consent',
      'publish',
      'terms',
      '--version',
      '2',
      '--required',
      '--lang',
      'ko',
      '--title',
      '서비스 이용약관 (2)',
      '--url',
      'https://example.com/ko/terms-2',
      '--lang',
      'en',
      '--title',
      'Terms of Service (2)',
      '--url',
      '/legal/terms-2',
    ]);
    expect(published).toEqual({
      code: 0,
      stdout: 'Published terms version 2 (required; ko, en).\n',
      stderr: '',
    });
    const listed = JSON.parse((await cli(['consent', 'list', '--json'])).stdout) as Array<
      Record<string, unknown>
    >;
    expect(listed.find((doc) => doc.key === 'terms')).toEqual({
      key: 'terms',
      version: 2,
      required: true,
      texts: {
        ko: { title: '서비스 이용약관 (2)', url: 'https://example.com/ko/terms-2' },
        en: { title: 'Terms of Service (2)', url: '/legal/terms-2' },
      },
    });
    const table = await cli(['consent', 'list']);
    expect(table.stdout).toMatch(/^KEY +VERSION +KIND +LANGUAGES +TITLE\n/);
    expect(table.stdout).toMatch(/\nterms +2 +required +en,ko +Terms of Service \(2\)\n/);

    const again = ['consent', 'publish', 'terms', '--version', '2', '--title', 'T', '--url', '/t'];
    expectOneLineFailure(await cli(again), '--version: The version must be at least 3.');
    // A new optional document, English only.
    const added = await cli([
      'consent',
      'publish',
      'marketing_kakao',
      '--version',
      '1',
      '--title',
      'Kakao',
      '--url',
      '/k',
    ]);
    expect(added.stdout).toBe('Published marketing_kakao version 1 (optional; en).\n');
  });

  it.each([
    [
      ['consent', 'publish', 'terms', '--version', '9', '--lang', 'ko', '--title', 'T'],
      'Give one --title, and one --url or --body (or both), per language, in the order of --lang (got 1 language(s), 1 title(s), 0 URL(s), 0 --body file(s))',
    ],
    [
      ['consent', 'publish', 'terms', '--version', 'x', '--title', 'T', '--url', '/t'],
      '--version: must be a positive integer',
    ],
    [
      ['consent', 'publish', 'terms', '--version', '9', '--lang', 'fr', '--title', 'T', '--url', '/t'],
      '--lang: must be one of ko, en',
    ],
    [
      ['consent', 'publish', 'terms', '--version', '9', '--title', 'T', '--url', 'javascript:alert(1)'],
      '--url: must be a path of this service (/legal/terms) or an http(s) URL',
    ],
    [
      ['consent', 'publish', 'Terms!', '--version', '9', '--title', 'T', '--url', '/t'],
      'KEY: lower-case letters, digits and _ only, at most 64 (marketing_email)',
    ],
  ])('accounts %j fails with one line', async (args, line) => {
    expectOneLineFailure(await cli(args), line);
  });

  it('reminds nobody on a fresh database, twice', async () => {
    for (let run = 0; run < 2; run++) {
      const result = await cli(['consent', 'remind', '--json']);
      expect(result.stderr).toBe('');
      expect(JSON.parse(result.stdout)).toEqual({ reminded: 0, withdrawn: 0 });
    }
    expect((await cli(['consent', 'remind'])).stdout).toBe('Reminded 0 user(s); withdrew 0 consent(s).\n');
  });
});
