import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { CHROMIUM_MISSING, chromiumInstalled, expectNoProblems, lookAt } from '../helpers/browser.js';
import { useWebSuite } from '../helpers/web-suite.js';

const SUITE = 'web-phone-login';

/** A page's first answers come after its modules load and its calls return: slow on a busy machine. */
const LOADED = { timeout: 10_000 };

/** The id of the element with the focus (a string: this file is compiled without the DOM library). */
const focused = (page: Page) => page.evaluate('document.activeElement && document.activeElement.id');

describe.runIf(!chromiumInstalled && process.env.CI === 'true')('web phone log-in in Chromium (CI)', () => {
  it('needs Chromium in CI', () => {
    throw new Error(CHROMIUM_MISSING);
  });
});

describe.skipIf(!chromiumInstalled)('web pages in Chromium: log-in by a mobile number', () => {
  const suite = useWebSuite();

  it.each([
    ['en', 'light', 'Log in with a mobile number', 'Mobile number'],
    ['ko', 'dark', '휴대전화 번호로 로그인', '휴대전화 번호'],
  ] as const)(
    'formats the number as it is typed, by keyboard (%s, %s)',
    async (lang, colorScheme, open, label) => {
      const { page, problems } = await suite.openPage({ colorScheme });
      await page.goto(`/login?lang=${lang}`);
      const button = page.getByRole('button', { name: open });
      expect(await button.getAttribute('aria-expanded')).toBe('false');
      await button.focus();
      await page.keyboard.press('Enter');
      await expect.poll(() => focused(page), LOADED).toBe('phone');
      expect(await button.getAttribute('aria-expanded')).toBe('true');
      const field = page.getByLabel(label, { exact: true });
      expect(await field.getAttribute('inputmode')).toBe('tel');
      expect(await field.getAttribute('autocomplete')).toBe('tel');
      await page.keyboard.type('01012345678');
      await expect.poll(() => field.inputValue()).toBe('010-1234-5678');
      await lookAt(page, SUITE, `${lang}-${colorScheme}-number`);
      // Backspace behind a hyphen takes the digit before it, not just the hyphen (which would come back).
      for (let step = 0; step < 4; step += 1) await page.keyboard.press('Backspace');
      expect(await field.inputValue()).toBe('010-1234');
      await page.keyboard.press('Backspace');
      expect(await field.inputValue()).toBe('010-123');
      // Typed in the middle: the caret stays after the digit typed.
      await page.keyboard.press('Home');
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('ArrowRight');
      await page.keyboard.type('9');
      expect(await field.inputValue()).toBe('010-9123');
      expect(await page.evaluate('document.activeElement.selectionStart')).toBe(5);
      await field.fill('');
      await page.keyboard.type('+821012345678');
      await expect.poll(() => field.inputValue()).toBe('+82 10 1234 5678');
      expectNoProblems(problems);
    },
  );
});
