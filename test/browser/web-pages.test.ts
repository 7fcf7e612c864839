import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeTestApp, createTestApp, type TestApp } from '../helpers/app.js';
import {
  baseUrl,
  CHROMIUM_MISSING,
  chromiumInstalled,
  expectNoProblems,
  launchChromium,
  type PageProblems,
  screenshot,
  watchProblems,
} from '../helpers/browser.js';
import { bearer, registerUser, unique } from '../helpers/factories.js';
import { expectError, expectOk, postForm, UNAUTHENTICATED } from '../helpers/http.js';
import { pngFixture } from '../helpers/images.js';
import { latestToken } from '../helpers/mail.js';

const SUITE = 'web-pages';

describe.runIf(!chromiumInstalled && process.env.CI === 'true')('web pages in Chromium (CI)', () => {
  it('needs Chromium in CI', () => {
    throw new Error(CHROMIUM_MISSING);
  });
});

describe.skipIf(!chromiumInstalled)(
  'web pages in Chromium: sign up, log in, profile, sessions, mail links',
  () => {
    let ctx: TestApp;
    let browser: Browser;
    let base: string;
    const opened: BrowserContext[] = [];
    const signup = { email: '', username: `web${unique()}`, password: `Quiet-Harbour-${unique()}` };
    signup.email = `${signup.username}@example.com`;

    beforeAll(async () => {
      ctx = await createTestApp('pglite');
      await ctx.app.listen({ port: 0, host: '127.0.0.1' });
      base = baseUrl(ctx.app.server.address());
      browser = await launchChromium();
    });

    afterAll(async () => {
      await browser?.close();
      if (ctx) await closeTestApp(ctx);
    });

    /** A fresh browser profile (its own cookies), as a second device would be, with its problems watched. */
    async function openPage(
      locale: string,
    ): Promise<{ page: Page; problems: PageProblems; context: BrowserContext }> {
      const context = await browser.newContext({ locale, baseURL: base });
      opened.push(context);
      const page = await context.newPage();
      return { page, problems: await watchProblems(page), context };
    }

    /** What the API itself answers for a name, in a language. */
    async function apiMessages(field: string, value: string, language: string): Promise<string[]> {
      const res = await postForm(
        ctx.app,
        `/dev/validate/${field}`,
        { [field]: value },
        { 'accept-language': language },
      );
      expect(res.statusCode).toBe(422);
      return (res.json() as { data: Record<string, string[]> }).data[field] ?? [];
    }

    let first: { page: Page; problems: PageProblems; context: BrowserContext };

    it('signs up in Korean with a photo, flagging a taken username while typing', async () => {
      const taken = await registerUser(ctx.app);
      first = await openPage('ko-KR');
      const { page, problems } = first;
      await page.goto('/signup');
      // Korean by the browser's Accept-Language, rendered with the CJK font (see the screenshot).
      await expect.poll(() => page.locator('html').getAttribute('lang')).toBe('ko');
      await expect.poll(() => page.locator('h1').textContent()).toBe('회원가입');
      await screenshot(page, SUITE, '01-signup-korean');

      await page.getByLabel('이메일', { exact: true }).fill(signup.email);
      await page.getByLabel('사용자 이름').pressSequentially(taken.username, { delay: 20 });
      const takenMessages = await apiMessages('username', taken.username, 'ko');
      expect(takenMessages.join(' ')).toMatch(/[가-힣]/);
      const usernameMessage = page.locator('#username-message');
      // The API answers in Korean; the page says it in its own sentence for a taken name.
      await expect
        .poll(() => usernameMessage.textContent())
        .toBe('이미 쓰이고 있는 사용자 이름입니다. 다른 이름을 정해 주세요.');
      await expect.poll(() => page.locator('#username').getAttribute('aria-invalid')).toBe('true');
      await screenshot(page, SUITE, '02-username-taken-live');

      await page.getByLabel('사용자 이름').fill(signup.username);
      await expect.poll(() => usernameMessage.textContent()).toBe('사용할 수 있습니다.');
      await expect.poll(() => page.locator('#email-message').textContent()).toBe('사용할 수 있습니다.');
      await page.getByLabel('여성').check();
      await page.getByLabel('비밀번호').fill(signup.password);
      await page.getByLabel('필수 약관에 모두 동의합니다').check();
      await page.getByLabel('프로필 사진 (JPEG, PNG, GIF)').setInputFiles({
        name: 'me.png',
        mimeType: 'image/png',
        buffer: await pngFixture(320, 200),
      });
      const preview = page.locator('#preview');
      await expect.poll(() => preview.isVisible()).toBe(true);
      // The page's own button in the page's language (the native one, in the browser's, is hidden).
      expect(await page.locator('label.button[for="profile_picture"]').textContent()).toBe('사진 선택');
      expect(await page.locator('#profile_picture-name').textContent()).toBe('me.png');
      expect(await preview.getAttribute('src')).toMatch(/^blob:/);
      await screenshot(page, SUITE, '03-signup-filled-with-preview');

      await page.getByRole('button', { name: '계정 만들기' }).click();
      await page.waitForURL('**/profile');
      await expect.poll(() => page.locator('#username').inputValue()).toBe(signup.username);
      await expect.poll(() => page.locator('#current-picture').isVisible()).toBe(true);
      await screenshot(page, SUITE, '04-profile-after-signup');
      // The token is in an HttpOnly cookie: the page's own script cannot see it.
      expect(await page.evaluate('document.cookie')).not.toContain('accounts_session');
      const cookie = (await first.context.cookies()).find((c) => c.name === 'accounts_session');
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
      expectNoProblems(problems);
    });

    let second: { page: Page; problems: PageProblems; context: BrowserContext };

    it('logs in on a second device (English), edits the profile and changes the picture', async () => {
      second = await openPage('en-US');
      const { page, problems } = second;
      await page.goto('/login');
      await expect.poll(() => page.locator('h1').textContent()).toBe('Log in');
      await page.getByLabel('Email').fill(signup.email);
      await page.getByLabel('Password').fill('wrong-password-1');
      await page.getByRole('button', { name: 'Log in', exact: true }).click();
      await expect
        .poll(() => page.locator('#form-error').textContent())
        .toBe('Wrong email or password. Check both and try again.');
      await screenshot(page, SUITE, '05-login-wrong-password');
      await page.getByLabel('Password').fill(signup.password);
      await page.getByRole('button', { name: 'Log in', exact: true }).click();
      await page.waitForURL('**/profile');

      await page.getByLabel('About you').fill('Hello from Chromium');
      await page.getByRole('button', { name: 'Save profile' }).click();
      await expect.poll(() => page.locator('#form-status').textContent()).toBe('Saved.');
      await page.reload();
      await expect.poll(() => page.locator('#bio').inputValue()).toBe('Hello from Chromium');

      await page.getByLabel('Profile picture (JPEG, PNG or GIF)').setInputFiles({
        name: 'new.png',
        mimeType: 'image/png',
        buffer: await pngFixture(200, 200),
      });
      await page.getByRole('button', { name: 'Change picture' }).click();
      await expect.poll(() => page.locator('#picture .status').textContent()).toBe('Picture changed.');
      await screenshot(page, SUITE, '06-profile-edited');
      expectNoProblems(problems);
    });

    it('revokes the first device’s session; that device is sent to the login page', async () => {
      const { page, problems } = second;
      await page.goto('/profile#activity');
      const revoke = page.getByRole('button', { name: /^Revoke/ });
      await expect.poll(() => revoke.count()).toBe(1);
      await expect.poll(() => page.locator('#sessions li').count()).toBe(2);
      await screenshot(page, SUITE, '07-sessions-before-revoke');
      await revoke.click();
      await expect.poll(() => page.locator('#sessions-status').textContent()).toBe('Session revoked.');
      await expect.poll(() => page.locator('#sessions li').count()).toBe(1);
      await screenshot(page, SUITE, '08-sessions-after-revoke');

      await first.page.goto('/profile');
      await first.page.waitForURL('**/login');
      expectNoProblems(problems);
    });

    it('signs out: the token is revoked and the cookie cleared', async () => {
      const { page, problems, context } = second;
      const token = (await context.cookies()).find((c) => c.name === 'accounts_session')?.value ?? '';
      expect(token).not.toBe('');
      await page.getByRole('button', { name: 'Log out' }).click();
      await page.waitForURL('**/login');
      await screenshot(page, SUITE, '09-signed-out');
      expect((await context.cookies()).find((c) => c.name === 'accounts_session')).toBeUndefined();
      const res = await ctx.app.inject({ method: 'GET', url: '/dev/user/get', headers: bearer(token) });
      expectError(res, 401, ...UNAUTHENTICATED);
      expectNoProblems(problems);
    });

    it('verifies the email with the mailed link (/verify-email)', async () => {
      await ctx.mailer.idle();
      const token = await latestToken(ctx.database.handle, signup.email, 'email_verify');
      const { page, problems } = await openPage('ko-KR');
      await page.goto(`/verify-email?token=${token}&lang=en`);
      await page.getByRole('button', { name: 'Verify my email' }).click();
      await expect
        .poll(() => page.locator('#form-status').textContent())
        .toBe('Your email address is verified. Thank you!');
      await screenshot(page, SUITE, '10-email-verified');
      expect(await page.getByRole('button', { name: 'Verify my email' }).isVisible()).toBe(false);
      // A second use of the link says so in the page's words, and offers a new link instead of the button.
      await page.reload();
      await page.getByRole('button', { name: 'Verify my email' }).click();
      await expect
        .poll(() => page.locator('#token-message').textContent())
        .toBe(
          'This link has already been used or has expired. Each link works once and only for a limited time.',
        );
      expect(await page.getByRole('button', { name: 'Verify my email' }).isVisible()).toBe(false);
      // Signed out in this browser: the new link needs a log-in first.
      await page.getByRole('button', { name: 'Send a new link' }).click();
      await expect
        .poll(() =>
          page.getByRole('link', { name: 'Log in to send a new link from your profile.' }).isVisible(),
        )
        .toBe(true);
      await screenshot(page, SUITE, '10b-email-link-used');
      expectNoProblems(problems);
    });

    it('sets a new password with the mailed link (/reset-password) and is signed in', async () => {
      await postForm(ctx.app, '/dev/auth/password/forgot', { email: signup.email });
      await ctx.mailer.idle();
      const token = await latestToken(ctx.database.handle, signup.email, 'password_reset');
      const { page, problems } = await openPage('ko-KR');
      await page.goto(`/reset-password?token=${token}`);
      await page.getByLabel('새 비밀번호').fill('short');
      await page.getByRole('button', { name: '새 비밀번호 저장' }).click();
      await expect.poll(() => page.locator('#password').getAttribute('aria-invalid')).toBe('true');
      await expect.poll(() => page.locator('#password-message').textContent()).toMatch(/[가-힣]/);
      await screenshot(page, SUITE, '11-reset-password-too-short');
      const password = `Bright-Lantern-${unique()}`;
      await page.getByLabel('새 비밀번호').fill(password);
      await page.getByRole('button', { name: '새 비밀번호 저장' }).click();
      await page.waitForURL('**/profile');
      await expect.poll(() => page.locator('#username').inputValue()).toBe(signup.username);
      await screenshot(page, SUITE, '12-reset-signed-in');
      const login = await postForm(ctx.app, '/dev/auth/login/email', { email: signup.email, password });
      expect(expectOk<{ user: { username: string } }>(login).user.username).toBe(signup.username);
      expectNoProblems(problems);
    });
  },
);
