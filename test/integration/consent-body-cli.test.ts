import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { appCommands, type InProcessCommands } from '../helpers/commands.js';
import { backends } from '../helpers/database.js';
import { expectOneLineFailure } from '../helpers/process.js';

// The commands run in this process on the app's database; the app serves what they published.
describe.each(backends)('%s: accounts consent publish --body', (backend) => {
  const ctx = useTestApp(backend);
  let commands: InProcessCommands;
  let files: string;

  beforeAll(async () => {
    files = await mkdtemp(path.join(tmpdir(), 'accounts-bodies-'));
    commands = appCommands(ctx);
  });
  afterAll(async () => {
    await commands?.close();
    if (files) await rm(files, { recursive: true, force: true });
  });

  const cli = (args: string[]) => commands.run(args);
  const file = async (name: string, content: string | Buffer) => {
    const at = path.join(files, name);
    await writeFile(at, content);
    return at;
  };

  it('publishes a text per language, serves it on the service’s own pages, and escapes its markup', async () => {
    // A byte-order mark and Windows line breaks, as an editor may save them.
    const ko = await file('terms-ko.txt', '\uFEFF## 제1조\r\n<script>alert("ko")</script> 본문입니다.\r\n');
    const en = await file('terms-en.txt', '## Article 1\n\n<script>alert("en")</script> The text.\n');
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
      '--body',
      ko,
      '--lang',
      'en',
      '--title',
      'Terms <2>',
      '--body',
      en,
    ]);
    expect(published).toEqual({
      code: 0,
      stdout: 'Published terms version 2 (required; ko, en).\n',
      stderr: '',
    });
    const listed = JSON.parse((await cli(['consent', 'list', '--json'])).stdout) as Array<
      Record<string, unknown>
    >;
    // Without --url each language's page is the service's own; the list never carries the texts.
    expect(listed.find((doc) => doc.key === 'terms')).toEqual({
      key: 'terms',
      version: 2,
      required: true,
      texts: {
        ko: { title: '서비스 이용약관 (2)', url: '/legal/terms/2/ko' },
        en: { title: 'Terms <2>', url: '/legal/terms/2/en' },
      },
    });

    const page = await ctx.app.inject('/legal/terms/2/en');
    expect(page.statusCode).toBe(200);
    const html = page.body;
    expect(html).toContain('<h1>Terms &#60;2&#62;</h1>');
    expect(html).toContain('<h2>Article 1</h2>');
    expect(html).toContain('<p>&#60;script&#62;alert(&#34;en&#34;)&#60;/script&#62; The text.</p>');
    expect(html).not.toMatch(/<script/i);
    const korean = (await ctx.app.inject('/legal/terms/2/ko')).body;
    expect(korean).toContain(
      '<h2>제1조</h2>\n<p>&#60;script&#62;alert(&#34;ko&#34;)&#60;/script&#62; 본문입니다.</p>',
    );
    const short = await ctx.app.inject({ url: '/legal/terms', headers: { 'accept-language': 'ko' } });
    expect(short.statusCode).toBe(302);
    expect(short.headers.location).toBe('/legal/terms/2/ko');
  });

  it('keeps an operator’s --url beside the text', async () => {
    const en = await file('kakao.txt', 'Kakao messages.');
    const published = await cli([
      'consent',
      'publish',
      'marketing_kakao',
      '--version',
      '1',
      '--title',
      'Kakao',
      '--url',
      'https://example.com/kakao',
      '--body',
      en,
    ]);
    expect(published.stdout).toBe('Published marketing_kakao version 1 (optional; en).\n');
    const listed = JSON.parse((await cli(['consent', 'list', '--json'])).stdout) as Array<
      Record<string, unknown>
    >;
    expect(listed.find((doc) => doc.key === 'marketing_kakao')).toMatchObject({
      texts: { en: { title: 'Kakao', url: 'https://example.com/kakao' } },
    });
  });

  it('refuses a body that is missing, not a file, too big, not UTF-8 or empty, each in one line', async () => {
    const publish = (body: string) =>
      cli(['consent', 'publish', 'privacy', '--version', '5', '--title', 'P', '--body', body]);
    const missing = path.join(files, 'missing.txt');
    expectOneLineFailure(await publish(missing), `--body: cannot read ${missing} (ENOENT)`);
    const folder = path.join(files, 'folder');
    await mkdir(folder);
    expectOneLineFailure(await publish(folder), `--body: ${folder} is not a file`);
    const big = await file('big.txt', 'a'.repeat(100 * 1024 + 1));
    expectOneLineFailure(await publish(big), `--body: ${big} is 102401 bytes; at most 102400 (100 KB)`);
    const latin1 = await file('latin1.txt', Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    expectOneLineFailure(await publish(latin1), `--body: ${latin1} is not UTF-8 text`);
    const nul = await file('nul.txt', 'a\u0000b');
    expectOneLineFailure(await publish(nul), `--body: ${nul} is not UTF-8 text (it holds NUL)`);
    const empty = await file('empty.txt', ' \n\n');
    expectOneLineFailure(await publish(empty), `--body: ${empty} is empty`);
    // Nothing was published.
    const listed = JSON.parse((await cli(['consent', 'list', '--json'])).stdout) as Array<{
      key: string;
      version: number;
    }>;
    expect(listed.find((doc) => doc.key === 'privacy')?.version).toBe(1);
  });

  it('asks for a --body per language when one is given', async () => {
    const ko = await file('count-ko.txt', '본문');
    expectOneLineFailure(
      await cli([
        'consent',
        'publish',
        'privacy',
        '--version',
        '5',
        '--lang',
        'ko',
        '--title',
        '개인정보',
        '--body',
        ko,
        '--lang',
        'en',
        '--title',
        'Privacy',
      ]),
      'Give one --title, and one --url or --body (or both), per language, in the order of --lang (got 2 language(s), 2 title(s), 0 URL(s), 1 --body file(s))',
    );
  });
});
