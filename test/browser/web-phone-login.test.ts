import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_MISSING, chromiumInstalled, expectNoProblems, lookAt } from '../helpers/browser.js';
import { type RegisteredUser, registerUser } from '../helpers/factories.js';
import { enableTotp } from '../helpers/second-factor.js';
import { type FakeSolapi, newMobile, startFakeSolapi } from '../helpers/solapi.js';
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
  let solapi: FakeSolapi;
  beforeAll(async () => {
    solapi = await startFakeSolapi();
  });
  const suite = useWebSuite(() => solapi.env());
  afterAll(async () => {
    await solapi.close();
  });

  type Mobile = ReturnType<typeof newMobile>;

  /** A registered user whose number is verified (written directly: the profile's flow has its own suite). */
  async function withPhone(): Promise<RegisteredUser & { phone: Mobile }> {
    const user = await registerUser(suite.ctx.app);
    const phone = newMobile();
    await suite.ctx.database.handle.db
      .updateTable('users')
      .set({ phone: phone.e164, phone_verified: true })
      .where('id', '=', user.id)
      .execute();
    return { ...user, phone };
  }

  /** The last code texted to the number, once the outbox has sent it. */
  async function textedCode(phone: Mobile): Promise<string> {
    await suite.ctx.infrastructure.sms.idle();
    return solapi.codeFor(phone.national);
  }

  it('signs in by the texted code at phone width, after a wrong one, all by keyboard', async () => {
    const me = await withPhone();
    const { page, problems } = await suite.openPage({ viewport: { width: 390, height: 844 } });
    await page.goto('/login?lang=en');
    await page.getByRole('button', { name: 'Log in with a mobile number' }).click();
    await expect.poll(() => focused(page), LOADED).toBe('phone');
    await page.keyboard.type(me.phone.national);
    // Enter in the number's field asks for the code.
    await page.keyboard.press('Enter');
    await expect
      .poll(() => page.locator('#phone-login .status').textContent(), LOADED)
      .toBe('If an account uses this number, a 6-digit code is on its way by text message. Enter it below.');
    expect(await focused(page)).toBe('phone_code');
    const field = page.getByLabel('Code from the text message');
    expect(await field.getAttribute('autocomplete')).toBe('one-time-code');
    expect(await field.getAttribute('inputmode')).toBe('numeric');
    const code = await textedCode(me.phone);
    await page.keyboard.type(String((Number(code) + 1) % 1_000_000).padStart(6, '0'));
    await page.keyboard.press('Enter');
    await expect
      .poll(() => page.locator('#phone_code-message').textContent(), LOADED)
      .toBe(
        'The code is wrong or has expired. Enter the newest code from the text message, or ask for a new one.',
      );
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    await lookAt(page, SUITE, 'en-code-wrong');
    await field.fill(code);
    await page.keyboard.press('Enter');
    await page.waitForURL('**/profile');
    expectNoProblems(problems);
  });

  it('asks the second factor after the code, and names a bad number on its field (ko, dark)', async () => {
    const me = await withPhone();
    await enableTotp(suite.ctx.app, me);
    const { page, problems } = await suite.openPage({ colorScheme: 'dark', locale: 'ko-KR' });
    await page.goto('/login?lang=ko');
    await page.getByRole('button', { name: '휴대전화 번호로 로그인' }).click();
    const number = page.getByLabel('휴대전화 번호', { exact: true });
    await number.fill('02-123-4567');
    await page.getByRole('button', { name: '문자로 코드 받기' }).click();
    await expect
      .poll(() => page.locator('#phone-message').textContent(), LOADED)
      .toBe('휴대전화 번호가 아닙니다. 휴대전화의 번호를 입력해 주세요.');
    expect(await number.getAttribute('aria-invalid')).toBe('true');
    await lookAt(page, SUITE, 'ko-dark-landline');
    await number.fill(me.phone.typed);
    await page.getByRole('button', { name: '문자로 코드 받기' }).click();
    await expect.poll(() => page.locator('#phone-code-entry').isVisible(), LOADED).toBe(true);
    await page.getByLabel('문자로 받은 코드').fill(await textedCode(me.phone));
    await page.locator('#phone-login button[type="submit"]').click();
    await expect.poll(() => page.locator('#second-factor').isVisible(), LOADED).toBe(true);
    expect(await page.locator('#phone-login').isVisible()).toBe(false);
    expect(await focused(page)).toBe('code');
    await lookAt(page, SUITE, 'ko-dark-second-factor');
    expectNoProblems(problems);
  });

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
