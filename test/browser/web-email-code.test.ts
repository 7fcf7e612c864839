import { describe, expect, it } from 'vitest';
import { CHROMIUM_MISSING, chromiumInstalled, expectNoProblems, screenshot } from '../helpers/browser.js';
import { codeFromText, codeMails, mailedCode } from '../helpers/email-code.js';
import { registerUser } from '../helpers/factories.js';
import { useWebSuite } from '../helpers/web-suite.js';

const SUITE = 'web-email-code';

describe.runIf(!chromiumInstalled && process.env.CI === 'true')(
  'web sign-in by email code in Chromium (CI)',
  () => {
    it('needs Chromium in CI', () => {
      throw new Error(CHROMIUM_MISSING);
    });
  },
);

describe.skipIf(!chromiumInstalled)('web pages in Chromium: sign-in by a code or link by email', () => {
  const suite = useWebSuite();

  it('asks for a code on /login at phone width, takes it in a one-time-code field and signs in', async () => {
    const me = await registerUser(suite.ctx.app);
    const { page, problems } = await suite.openPage({ viewport: { width: 390, height: 844 } });
    await page.goto('/login?lang=en');
    await page.getByLabel('Email', { exact: true }).fill(me.email);
    await page.getByRole('button', { name: 'Email me a sign-in code' }).click();
    await expect
      .poll(() => page.locator('#email-code .status').textContent())
      .toBe('If an account has this address, a 6-digit code is on its way. It works for 10 minutes.');
    const field = page.getByLabel('Sign-in code');
    expect(await field.getAttribute('autocomplete')).toBe('one-time-code');
    expect(await field.getAttribute('inputmode')).toBe('numeric');
    await suite.ctx.mailer.idle();
    const { code } = await codeOf(me.email);
    await field.fill(code);
    await screenshot(page, SUITE, '01-login-code-390');
    await page.locator('#email-code button[type="submit"]').click();
    await page.waitForURL('**/profile');
    expectNoProblems(problems);
  });

  it("signs in in Korean from the mail's link, with one button", async () => {
    const me = await registerUser(suite.ctx.app);
    const { token } = await mailedCode(suite.ctx, me.email);
    const { page, problems } = await suite.openPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`/login?token=${token}&lang=ko`);
    expect(await page.locator('#login').isVisible()).toBe(false);
    await screenshot(page, SUITE, '02-login-link-ko-1280');
    await page.locator('#email-link button[type="submit"]').click();
    await page.waitForURL('**/profile');
    expectNoProblems(problems);
  });

  /** The newest code mail's code: read from the outbox, as the other suites read links. */
  async function codeOf(email: string) {
    const mail = (await codeMails(suite.ctx, email)).at(-1);
    return { code: codeFromText(mail?.text) };
  }
});
