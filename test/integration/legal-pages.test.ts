import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors.js';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { expectError, expectOk } from '../helpers/http.js';
import { buildTestServices } from '../helpers/services.js';

interface DocumentView {
  key: string;
  version: number;
  title: string;
  url: string;
}

/** The page's text with its tags taken out (what a reader sees, give or take whitespace). */
const textOf = (html: string) => html.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ');

/** An HTML page under the pages' policy, with no script of its own. */
function expectDocumentPage(res: LightMyRequestResponse): void {
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
  expect(res.headers['content-security-policy']).toContain("default-src 'none'");
  expect(res.headers['content-security-policy']).toContain("script-src 'self'");
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  expect(res.headers['x-frame-options']).toBe('DENY');
  expect(res.body).not.toMatch(/<script/i);
}

describe.each(backends)('%s: the consent documents’ pages at /legal/…', (backend) => {
  const ctx = useTestApp(backend);
  const get = (url: string, headers: Record<string, string> = {}) =>
    ctx.app.inject({ method: 'GET', url, headers });
  const publish = (input: Parameters<ReturnType<typeof buildTestServices>['consents']['publish']>[0]) =>
    buildTestServices(ctx).consents.publish(input);

  it.each([
    ['en', 'en', 'This is a starter text'],
    ['ko', 'ko-KR,ko;q=0.9', '기본 예시'],
  ])(
    'serves every seeded document’s page that consents/documents links to (%s)',
    async (lang, accept, starter) => {
      const { documents } = expectOk<{ documents: DocumentView[] }>(
        await get('/dev/consents/documents', { 'accept-language': accept }),
      );
      expect(documents).toHaveLength(6);
      for (const document of documents) {
        expect(document.url).toBe(`/legal/${document.key}/1/${lang}`);
        const res = await get(document.url);
        expectDocumentPage(res);
        expect(res.body).toContain(`<html lang="${lang}">`);
        expect(res.body).toContain(`<h1>${document.title}</h1>`);
        expect(res.body).toContain(`<article class="card document" lang="${lang}">`);
        expect(textOf(res.body)).toContain(starter);
        expect(res.body).toMatch(/<h2>[^<]+<\/h2>/);
      }
    },
  );

  it('names what the privacy document collects, why, for how long, and the right to refuse', async () => {
    const en = textOf((await get('/legal/privacy/1/en')).body);
    for (const item of [
      'email address',
      'username',
      'gender',
      'profile picture',
      'device data',
      'IP address',
    ])
      expect(en).toContain(item);
    for (const part of ['Why', 'Until you delete your account', 'grace period', 'right to refuse'])
      expect(en).toContain(part);
    const ko = textOf((await get('/legal/privacy/1/ko')).body);
    for (const item of [
      '이메일 주소',
      '사용자 이름',
      '성별',
      '프로필 사진',
      '기기 정보',
      'IP 주소',
      '유예 기간',
      '거부할 권리',
    ])
      expect(ko).toContain(item);
    expect(textOf((await get('/legal/night_push/1/en')).body)).toContain('between 21:00 and 08:00');
  });

  it('links the language switch to the same version in the other language', async () => {
    const res = await get('/legal/terms/1/en');
    expect(res.body).toContain('<a href="/legal/terms/1/ko" lang="ko" hreflang="ko">한국어</a>');
    expect(res.body).toContain(
      '<a href="/legal/terms/1/en" lang="en" hreflang="en" aria-current="true">English</a>',
    );
  });

  it('shows a text as text: markup in a title or a body is escaped, never run', async () => {
    await publish({
      key: 'hostile',
      version: 1,
      required: false,
      texts: { en: { title: 'Hi <b>there</b>', url: '/legal/hostile/1/en' } },
      bodies: {
        en: '## <img src=x onerror=alert(1)>\n<script>alert("x")</script>\n\n- <a href="javascript:alert(1)">x</a>',
      },
    });
    const res = await get('/legal/hostile/1/en');
    expectDocumentPage(res);
    expect(res.body).toContain('<h1>Hi &#60;b&#62;there&#60;/b&#62;</h1>');
    expect(res.body).toContain('<h2>&#60;img src=x onerror=alert(1)&#62;</h2>');
    expect(res.body).toContain('<p>&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62;</p>');
    expect(res.body).toContain('<li>&#60;a href=&#34;javascript:alert(1)&#34;&#62;x&#60;/a&#62;</li>');
    expect(res.body).not.toMatch(/<(img|a href="javascript)/);
  });

  it('shows a version in the language it has, says so, and marks an older version', async () => {
    await publish({
      key: 'terms',
      version: 2,
      required: true,
      texts: {
        en: { title: 'Terms of Service (2)', url: '/legal/terms/2/en' },
        ko: { title: '서비스 이용약관 (2)', url: '/legal/terms/2/ko' },
      },
      bodies: { en: 'Second version.' },
    });
    const ko = await get('/legal/terms/2/ko');
    expectDocumentPage(ko);
    // The page around the text is Korean, as asked; the text and its title are the English there is.
    expect(ko.body).toContain('<html lang="ko">');
    expect(ko.body).toContain('<h1>Terms of Service (2)</h1>');
    expect(ko.body).toContain(
      '<article class="card document" lang="en">\n<p>Second version.</p>\n</article>',
    );
    expect(ko.body).toContain('이 문서는 한국어로 제공되지 않아');
    expect((await get('/legal/terms/2/en')).body).not.toContain('class="notice"');
    // Users agreed to version 1: its page stays, pointing to the current one.
    const older = await get('/legal/terms/1/en');
    expectDocumentPage(older);
    expect(textOf(older.body)).toContain('This is an earlier version. The current one is version 2:');
    expect(older.body).toContain('<a href="/legal/terms">read the current version</a>');
  });

  it.each([
    '/legal/nothing/1/en',
    '/legal/privacy/9/en',
    '/legal/privacy/0/en',
    '/legal/privacy/01/en',
    '/legal/privacy/1.0/en',
    '/legal/privacy/99999999999/en',
    '/legal/privacy/1/fr',
    '/legal/privacy/1/EN',
    '/legal/Privacy/1/en',
    '/legal/privacy/1/en/more',
    '/legal/nothing',
  ])('answers %s with the 404 of every unknown page', async (url) => {
    expectError(await get(url), 404, 'NotFoundHttpException', 'Not Found');
  });

  it('answers 404 for a version whose pages are elsewhere (published without a text)', async () => {
    await publish({
      key: 'external',
      version: 1,
      required: false,
      texts: { en: { title: 'External', url: 'https://example.com/external' } },
    });
    expectError(await get('/legal/external/1/en'), 404, 'NotFoundHttpException', 'Not Found');
    // Its short link leads to the operator's page.
    const res = await get('/legal/external');
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('https://example.com/external');
  });

  it('redirects /legal/<key> to the current version in the reader’s language', async () => {
    const cases: Array<[Record<string, string>, string, string]> = [
      [{}, '/legal/privacy', '/legal/privacy/1/en'],
      [{ 'accept-language': 'ko-KR,ko;q=0.9,en;q=0.8' }, '/legal/privacy', '/legal/privacy/1/ko'],
      [{ 'accept-language': 'ko' }, '/legal/privacy?lang=en', '/legal/privacy/1/en'],
      [{ cookie: 'accounts_lang=ko' }, '/legal/marketing_email', '/legal/marketing_email/1/ko'],
    ];
    for (const [headers, url, location] of cases) {
      const res = await get(url, headers);
      expect(res.statusCode, url).toBe(302);
      expect(res.headers.location).toBe(location);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers.vary).toBe('accept-language, cookie');
    }
    await publish({
      key: 'privacy',
      version: 2,
      required: true,
      texts: { en: { title: 'Privacy (2)', url: '/legal/privacy/2/en' } },
      bodies: { en: 'Second.' },
    });
    // No Korean text in version 2: Korean readers get the English one.
    const res = await get('/legal/privacy', { 'accept-language': 'ko' });
    expect(res.headers.location).toBe('/legal/privacy/2/en');
  });

  it('refuses to publish a text in a language that has no title', async () => {
    const refused = publish({
      key: 'untitled',
      version: 1,
      required: false,
      texts: { en: { title: 'Untitled', url: '/legal/untitled/1/en' } },
      bodies: { ko: '제목 없는 본문' },
    });
    await expect(refused).rejects.toBeInstanceOf(ValidationError);
    expectError(await get('/legal/untitled'), 404, 'NotFoundHttpException', 'Not Found');
  });
});
