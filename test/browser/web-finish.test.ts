import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  CHROMIUM_MISSING,
  chromiumInstalled,
  expectNoProblems,
  lookAt,
  screenshot,
} from '../helpers/browser.js';
import { registerUser } from '../helpers/factories.js';
import { expectError, postForm } from '../helpers/http.js';
import { useWebSuite } from '../helpers/web-suite.js';

const SUITE = 'web-finish';

/**
 * Each language, one opened at a phone's width and one at a desktop's: `lookAt` then shoots and checks the
 * layout of both widths, so every language is seen at 390 and 1280 px without opening each view twice.
 */
const VIEWS = [
  { lang: 'ko', locale: 'ko-KR', width: 390 },
  { lang: 'en', locale: 'en-US', width: 1280 },
] as const;
type Lang = (typeof VIEWS)[number]['lang'];

/** The pages' own words these tests expect (src/web/i18n*.ts). */
const WORDS: Record<Lang, Record<string, string>> = {
  ko: {
    reauthNeeded: '먼저 비밀번호나 패스키로 본인 확인을 해 주세요.',
    passwordChanged: '비밀번호를 바꿨습니다. 다른 기기에서는 로그아웃되었습니다.',
    passwordChangedEvent: '비밀번호 변경',
    confirm: '확인',
    gender: '성별을 선택해 주세요.',
    email: '이메일 주소를 입력해 주세요.',
    emailFormat: 'name@example.com처럼 이메일 주소 전체를 입력해 주세요.',
    username: '사용자 이름을 정해 주세요.',
    password: '비밀번호를 입력해 주세요.',
    passwordShort: '비밀번호는 8자 이상으로 정해 주세요.',
    agreement: '가입하려면 필수 약관에 동의해 주세요.',
    required: '필수',
    profile: '프로필',
    signup: '회원가입',
    login: '로그인',
    notFound: '페이지를 찾을 수 없습니다',
    home: '홈으로 가기',
  },
  en: {
    reauthNeeded: 'First confirm it is you, with your password or a passkey.',
    passwordChanged: 'Password changed. Your other sessions are logged out.',
    passwordChangedEvent: 'Password changed',
    confirm: 'Confirm',
    gender: 'Choose your gender.',
    email: 'Enter your email address.',
    emailFormat: 'Enter a whole email address, such as name@example.com.',
    username: 'Choose a username.',
    password: 'Enter a password.',
    passwordShort: 'Use at least 8 characters.',
    agreement: 'To sign up, agree to the required terms.',
    required: 'required',
    profile: 'Profile',
    signup: 'Sign up',
    login: 'Log in',
    notFound: 'Page not found',
    home: 'Go to the home page',
  },
};

const text = (page: Page, selector: string) => page.locator(selector).first().textContent();
const navLinks = (page: Page) => page.locator('.site-nav a').allTextContents();

describe.runIf(!chromiumInstalled && process.env.CI === 'true')('web pages finished (CI)', () => {
  it('needs Chromium in CI', () => {
    throw new Error(CHROMIUM_MISSING);
  });
});

describe.skipIf(!chromiumInstalled)('web pages in Chromium: flows that finish the job', () => {
  const suite = useWebSuite();

  it.each(VIEWS)(
    'resumes a password change once confirmed and reloads the activity it adds ($lang, $width px)',
    async ({ lang, locale, width }) => {
      const words = WORDS[lang];
      const me = await registerUser(suite.ctx.app);
      const { page, problems } = await suite.openSignedIn(me.token, {
        locale,
        viewport: { width, height: 900 },
      });
      await page.goto('/profile#activity');
      const activity = () => page.locator('#activity').textContent();
      await expect.poll(() => page.locator('#activity li').count()).toBe(1);
      expect(await activity()).not.toContain(words.passwordChangedEvent);

      // Sent before confirming: the form says what to do first.
      await page.goto('/profile#signin');
      const changed = `${me.password}-changed`;
      await page.locator('#new_password').fill(changed);
      await page.locator('#new_password_again').fill(changed);
      await page.locator('#password-change button[type="submit"]').click();
      const error = page.locator('#password-change .error[role="alert"]');
      await expect.poll(() => error.textContent()).toBe(words.reauthNeeded);
      await lookAt(page, SUITE, `${lang}-password-asks`);

      // Confirming continues the change: done, and its error gone.
      await page.locator('#reauth_password').fill(me.password);
      await page.getByRole('button', { name: words.confirm, exact: true }).click();
      await expect.poll(() => text(page, '#password-change .status')).toBe(words.passwordChanged);
      expect(await error.textContent()).toBe('');
      expect(await page.locator('#new_password').inputValue()).toBe('');
      await lookAt(page, SUITE, `${lang}-password-resumed`);
      const login = await postForm(suite.ctx.app, '/v1/auth/login/email', {
        email: me.email,
        password: changed,
      });
      expect(login.statusCode).toBe(200);

      // The activity section, shown again without a reload, lists the change.
      await page.evaluate("location.hash = 'activity'");
      await expect.poll(activity).toContain(words.passwordChangedEvent);
      await lookAt(page, SUITE, `${lang}-activity-reloaded`);
      expectNoProblems(problems);
    },
  );

  it.each(VIEWS)(
    'says every sign-up field error in its own words and marks the required fields ($lang, $width px)',
    async ({ lang, locale, width }) => {
      const words = WORDS[lang];
      const { page, problems } = await suite.openPage({ locale, viewport: { width, height: 900 } });
      await page.goto('/signup');
      for (const selector of [
        '#email',
        '#username',
        '#password',
        '#user_agreement',
        'input[name="gender"]',
      ]) {
        expect(await page.locator(selector).first().getAttribute('required'), selector).toBe('');
      }
      expect(await page.locator('fieldset[aria-required="true"] legend').textContent()).toContain(
        words.required,
      );
      expect(await page.locator('.field:has(#email) .required-mark').isVisible()).toBe(true);
      expect(await page.locator('.field:has(#slug) .required-mark').count()).toBe(0);

      await page.locator('#signup button[type="submit"]').click();
      await expect.poll(() => text(page, '#gender-message')).toBe(words.gender);
      expect(await text(page, '#email-message')).toBe(words.email);
      expect(await text(page, '#username-message')).toBe(words.username);
      expect(await text(page, '#password-message')).toBe(words.password);
      expect(await text(page, '#user_agreement-message')).toBe(words.agreement);
      await lookAt(page, SUITE, `${lang}-signup-required`);

      // Values the API refuses by rule, with the rule's number in the page's sentence.
      await page.locator('#email').fill('not-an-email');
      await page.locator('#password').fill('short');
      await page.locator('#signup button[type="submit"]').click();
      await expect.poll(() => text(page, '#password-message')).toBe(words.passwordShort);
      await expect.poll(() => text(page, '#email-message')).toBe(words.emailFormat);
      expectNoProblems(problems);
      await page.context().close();
    },
  );

  it.each(VIEWS)(
    'shows the account, not sign-up and log-in, once signed in, and no identity card without PortOne ($lang, $width px)',
    async ({ lang, locale, width }) => {
      const words = WORDS[lang];
      const visitor = await suite.openPage({ locale, viewport: { width, height: 900 } });
      await visitor.page.goto('/');
      expect(await navLinks(visitor.page)).toEqual(expect.arrayContaining([words.signup, words.login]));
      await visitor.context.close();

      const me = await registerUser(suite.ctx.app);
      const { page, problems } = await suite.openSignedIn(me.token, {
        locale,
        viewport: { width, height: 900 },
      });
      await page.goto('/');
      const links = await navLinks(page);
      expect(links).toContain(words.profile);
      expect(links).not.toContain(words.signup);
      expect(links).not.toContain(words.login);
      await page.goto('/profile');
      await expect.poll(() => page.locator('#email').inputValue()).toBe(me.email);
      expect(await page.locator('#identity').count()).toBe(0);
      expect(await page.locator('#identity-heading').count()).toBe(0);
      await lookAt(page, SUITE, `${lang}-profile-signed-in`);
      expectNoProblems(problems);
      await page.context().close();
    },
  );

  it.each(VIEWS)(
    'answers an unknown address with a 404 page in the reader’s language ($lang, $width px)',
    async ({ lang, locale, width }) => {
      const words = WORDS[lang];
      const { page, problems, context } = await suite.openPage({ locale, viewport: { width, height: 900 } });
      const answer = await page.goto('/no-such-page');
      expect(answer?.status()).toBe(404);
      expect(answer?.headers()['content-type']).toBe('text/html; charset=utf-8');
      expect(await page.locator('h1').textContent()).toBe(words.notFound);
      expect(await page.locator('html').getAttribute('lang')).toBe(lang);
      await lookAt(page, SUITE, `${lang}-not-found`);
      await page.getByRole('link', { name: words.home }).click();
      await page.waitForURL((url) => url.pathname === '/');
      // The one console line is Chromium's note of the 404 status itself.
      expect(problems.errors).toEqual([
        expect.stringMatching(/^console: Failed to load resource: .* 404 .*\/no-such-page\)$/),
      ]);
      await context.close();
    },
  );

  it('keeps the JSON 404 envelope for the API and every client that does not ask for HTML', async () => {
    for (const accept of [undefined, 'application/json', '*/*', 'application/json, text/html;q=0.5']) {
      for (const url of ['/no-such-page', '/v1/no-such-route']) {
        const answer = await suite.ctx.app.inject({
          method: 'GET',
          url,
          headers: accept ? { accept } : {},
        });
        expectError(answer, 404, 'NotFoundHttpException', 'Not Found');
      }
    }
    // A known route's own 404 stays its answer, HTML asked or not.
    const legal = await suite.ctx.app.inject({
      method: 'GET',
      url: '/legal/no-such-document',
      headers: { accept: 'text/html' },
    });
    expectError(legal, 404, 'NotFoundHttpException', 'Not Found');
  });

  it.each(VIEWS)(
    'frames /docs in the reader’s language, dark in dark mode ($lang)',
    async ({ lang, locale }) => {
      const { page, problems, context } = await suite.openPage({ locale, colorScheme: 'dark' });
      // A small document: the frame is under test here, Swagger UI's rendering in api-docs.test.ts.
      await page.route('**/openapi.json', (route) =>
        route.fulfill({
          contentType: 'application/json',
          body: JSON.stringify({ openapi: '3.0.3', info: { title: 'Accounts', version: '1' }, paths: {} }),
        }),
      );
      await page.goto('/docs');
      await expect.poll(() => page.locator('.swagger-ui .info').count()).toBe(1);
      expect(await page.locator('html').getAttribute('class')).toContain('dark-mode');
      expect(await page.locator('html').getAttribute('lang')).toBe(lang);
      expect(await page.title()).toBe(lang === 'ko' ? 'API 문서 · 계정' : 'API docs · Accounts');
      expect(await text(page, '.docs-back a')).toBe(
        lang === 'ko' ? '← 사이트로 돌아가기' : '← Back to the site',
      );
      expect(await page.evaluate('getComputedStyle(document.body).backgroundColor')).toBe('rgb(28, 32, 34)');
      await screenshot(page, SUITE, `${lang}-docs-dark`);
      expectNoProblems(problems);
      await context.close();
    },
  );
});
