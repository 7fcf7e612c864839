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
import { useWebSuite } from '../helpers/web-suite.js';

const SUITE = 'web-look';

/** Every page, as a visitor opens it (the mailed pages without their token show their own message). */
const PAGES = [
  '/',
  '/signup',
  '/login',
  '/forgot-password',
  '/profile',
  '/verify-email',
  '/reset-password',
  '/account-deleted',
];
const WIDTHS = [390, 1280];

/** Elements whose right edge passes the viewport: nothing may make a phone scroll sideways. */
function overflowing(page: Page): Promise<{ scrollWidth: number; innerWidth: number; elements: string[] }> {
  return page.evaluate(`(() => {
    const width = window.innerWidth;
    const elements = [...document.querySelectorAll('body *')]
      .filter((element) => element.getBoundingClientRect().right > width + 0.5)
      .map((element) => element.tagName.toLowerCase() + (element.id ? '#' + element.id : '') +
        (element.className && typeof element.className === 'string' ? '.' + element.className : ''));
    return { scrollWidth: document.documentElement.scrollWidth, innerWidth: width, elements };
  })()`);
}

/** A string, not a function: this file is compiled without the DOM library. */
const backgroundOf = (page: Page, selector: string) =>
  page.evaluate(`getComputedStyle(document.querySelector(${JSON.stringify(selector)})).backgroundColor`);

describe.runIf(!chromiumInstalled && process.env.CI === 'true')('web look in Chromium (CI)', () => {
  it('needs Chromium in CI', () => {
    throw new Error(CHROMIUM_MISSING);
  });
});

describe.skipIf(!chromiumInstalled)('web pages’ look in Chromium: widths, dark mode, focus', () => {
  const suite = useWebSuite();

  for (const width of WIDTHS) {
    it(`lays out every page within ${width} px, signed in (profile) and in Korean`, async () => {
      const me = await registerUser(suite.ctx.app);
      const { page, problems } = await suite.openSignedIn(me.token, {
        locale: 'ko-KR',
        viewport: { width, height: 900 },
      });
      for (const path of PAGES) {
        await page.goto(path);
        await expect.poll(() => page.locator('html').getAttribute('lang')).toBe('ko');
        if (path === '/profile') {
          await expect.poll(() => page.locator('#username').inputValue()).toBe(me.username);
          await expect.poll(() => page.locator('#sessions li').count()).toBe(1);
        }
        const name = path === '/' ? 'home' : path.slice(1);
        await screenshot(page, SUITE, `${width}-${name}`);
        const layout = await overflowing(page);
        expect(layout, `${path} at ${width} px`).toMatchObject({ elements: [] });
        expect(layout.scrollWidth, `${path} at ${width} px`).toBeLessThanOrEqual(layout.innerWidth);
      }
      expectNoProblems(problems);
    });
  }

  it('follows prefers-color-scheme: dark has its own background', async () => {
    const light = await suite.openPage({ colorScheme: 'light' });
    const dark = await suite.openPage({ colorScheme: 'dark' });
    for (const { page } of [light, dark]) await page.goto('/login');
    const [lightBody, darkBody] = [
      await backgroundOf(light.page, 'body'),
      await backgroundOf(dark.page, 'body'),
    ];
    const [lightCard, darkCard] = [
      await backgroundOf(light.page, '.card'),
      await backgroundOf(dark.page, '.card'),
    ];
    expect(darkBody).not.toBe(lightBody);
    expect(darkCard).not.toBe(lightCard);
    await screenshot(dark.page, SUITE, 'dark-login');
    expectNoProblems(light.problems);
    expectNoProblems(dark.problems);
  });

  it('lays out the profile’s sections and the new controls in dark mode, in Korean, at both widths', async () => {
    const me = await registerUser(suite.ctx.app);
    const { page, problems } = await suite.openSignedIn(me.token, { locale: 'ko-KR', colorScheme: 'dark' });
    await page.goto('/signup');
    await page.locator('#password').fill('password');
    await page.locator('#agree_all').check();
    await lookAt(page, SUITE, 'dark-signup-ko');
    for (const section of ['security', 'data']) {
      await page.goto(`/profile#${section}`);
      await expect.poll(() => page.locator('#username').inputValue()).toBe(me.username);
      await lookAt(page, SUITE, `dark-profile-${section}-ko`);
    }
    expect(await backgroundOf(page, '.reauth-panel')).not.toBe('rgb(255, 255, 255)');
    await page.goto('/account-deleted?on=2026-12-11T09:00:00Z');
    await lookAt(page, SUITE, 'dark-account-deleted-ko');
    expectNoProblems(problems);
  });

  it('shows where the keyboard focus is (Tab gives the element an outline)', async () => {
    const { page, problems } = await suite.openPage();
    await page.goto('/login');
    await page.locator('#email').focus();
    // From the email field: the password, its show button, the "forgot" link, the log-in button.
    for (const tag of ['input', 'button', 'a', 'button']) {
      await page.keyboard.press('Tab');
      const focus = (await page.evaluate(`(() => {
        const element = document.activeElement;
        const style = getComputedStyle(element);
        return {
          tag: element.tagName.toLowerCase(),
          focusVisible: element.matches(':focus-visible'),
          marked: (style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0) || style.boxShadow !== 'none',
        };
      })()`)) as { tag: string; focusVisible: boolean; marked: boolean };
      expect(focus).toEqual({ tag, focusVisible: true, marked: true });
    }
    await screenshot(page, SUITE, 'focus-on-login-button');
    expectNoProblems(problems);
  });
});
