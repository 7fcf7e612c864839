import { readdir, readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';

const PARTS = new URL('../../web/static/styles/', import.meta.url);

describe('web pages: the stylesheet and the forgotten-password page', () => {
  const ctx = useTestApp('pglite');

  it('serves the stylesheet as one file built from its parts, in name order, and no part alone', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/assets/styles.css' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/css; charset=utf-8');
    const names = (await readdir(PARTS)).filter((name) => name.endsWith('.css')).sort();
    expect(names.length).toBeGreaterThan(1);
    // Each part's first comment appears once, in the parts' order.
    const positions = await Promise.all(
      names.map(async (name) => {
        const firstLine = (await readFile(new URL(name, PARTS), 'utf8')).split('\n')[0] ?? '';
        return res.body.indexOf(firstLine);
      }),
    );
    expect(positions.every((position) => position >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    for (const name of names) {
      const part = await ctx.app.inject({ method: 'GET', url: `/assets/styles/${name}` });
      expect(part.statusCode).toBe(404);
    }
  });

  it('links /login to /forgot-password, a page under the same strict policy', async () => {
    const login = await ctx.app.inject({
      method: 'GET',
      url: '/login',
      headers: { 'accept-language': 'en' },
    });
    expect(login.body).toContain('<a href="/forgot-password">Forgot your password?</a>');
    const page = await ctx.app.inject({ method: 'GET', url: '/forgot-password?lang=ko' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toContain("style-src 'self'");
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.body).toContain('<script type="module" src="/assets/pages/forgot-password.js"></script>');
    expect(page.body).toContain('<h1>비밀번호를 잊으셨나요?</h1>');
    expect(page.body).not.toMatch(/ style=|<style/);
  });

  it('serves the WebAuthn browser library from its package, as JavaScript, with its relative imports', async () => {
    const index = await ctx.app.inject({ method: 'GET', url: '/assets/vendor/simplewebauthn/index.js' });
    expect(index.statusCode).toBe(200);
    expect(index.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(index.headers['x-content-type-options']).toBe('nosniff');
    const imported = [...index.body.matchAll(/from '\.\/([^']+)'/g)].map((match) => match[1]);
    expect(imported).toContain('methods/startAuthentication.js');
    for (const file of imported) {
      const res = await ctx.app.inject({ method: 'GET', url: `/assets/vendor/simplewebauthn/${file}` });
      expect(res.statusCode, file).toBe(200);
    }
    // Only the built modules: not the package's other files.
    for (const url of ['package.json', 'index.d.ts', 'index.d.ts.map']) {
      const res = await ctx.app.inject({ method: 'GET', url: `/assets/vendor/simplewebauthn/${url}` });
      expect(res.statusCode, url).toBe(404);
    }
  });

  it("serves libphonenumber-js's ES modules and metadata, each import of the formatter found", async () => {
    const seen = new Set<string>();
    const load = async (url: string): Promise<void> => {
      if (seen.has(url)) return;
      seen.add(url);
      const res = await ctx.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type'], url).toBe('text/javascript; charset=utf-8');
      const imports = [...res.body.matchAll(/^import [^;]*?from '(\.[^']+)'/gm)].map(
        (match) => match[1] ?? '',
      );
      for (const path of imports) await load(new URL(path, `http://host${url}`).pathname);
    };
    await load('/assets/vendor/libphonenumber/es6/AsYouType.js');
    await load('/assets/vendor/libphonenumber/metadata.min.json.js');
    expect(seen.size).toBeGreaterThan(10);
    const res = await ctx.app.inject({ method: 'GET', url: '/assets/vendor/libphonenumber/package.json' });
    expect(res.statusCode).toBe(404);
  });
});

describe('web pages: the deletion card states the configured grace period', () => {
  const immediate = useTestApp('pglite', { DELETION_GRACE_DAYS: '0' });
  const graced = useTestApp('pglite', { DELETION_GRACE_DAYS: '30' });

  /** The card's own HTML: the page's JSON block carries every string of the language, both variants too. */
  const deletionCard = (html: string) =>
    /<section class="card" aria-labelledby="delete-heading">[\s\S]*?<\/section>/.exec(html)?.[0] ?? '';

  it('says the account is erased at once without a grace period, and after the days with one', async () => {
    const now = deletionCard((await immediate.app.inject({ method: 'GET', url: '/profile?lang=en' })).body);
    expect(now).toContain('Your account and everything in it are erased at once.');
    expect(now).not.toContain('days');
    const later = deletionCard((await graced.app.inject({ method: 'GET', url: '/profile?lang=ko' })).body);
    expect(later).toContain('요청하고 30일 뒤에 계정이 지워집니다.');
    expect(later).toContain(
      '30일이 지나기 전에 메일로 보내 드리는 링크를 열거나, <a href="/cancel-deletion">',
    );
    expect(later).not.toContain('바로 지워집니다');
  });
});

describe('web pages: the mobile number is offered only where codes can be texted', () => {
  const without = useTestApp('pglite');
  // Page rendering sends nothing: the settings need no gateway behind them.
  const texting = useTestApp('pglite', {
    SOLAPI_API_KEY: 'NCSPAGEKEY',
    SOLAPI_API_SECRET: 'PAGESECRET',
    SOLAPI_SENDER: '0212345678',
  });

  it('leaves the log-in form and the profile card out without SOLAPI, and shows them with it', async () => {
    const page = async (ctx: typeof without, url: string) =>
      (await ctx.app.inject({ method: 'GET', url })).body;
    expect(await page(without, '/login?lang=en')).not.toContain('id="phone-login"');
    expect(await page(without, '/profile?lang=en')).not.toContain('id="phone-add"');
    const login = await page(texting, '/login?lang=en');
    expect(login).toContain('<form id="phone-login" class="alternative" method="post" novalidate>');
    expect(login).toContain(
      '<input id="phone_code" name="phone_code" type="text" autocomplete="one-time-code" required inputmode="numeric" pattern="[0-9]*" maxlength="6" aria-describedby="phone_code-message">',
    );
    expect(await page(texting, '/profile?lang=ko')).toContain('<h2 id="phone-heading">휴대전화 번호</h2>');
  });
});
