import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { CHROMIUM_MISSING, chromiumInstalled, expectNoProblems, lookAt } from '../helpers/browser.js';
import { codeFromText, codeMails } from '../helpers/email-code.js';
import { unique } from '../helpers/factories.js';
import { useWebSuite } from '../helpers/web-suite.js';

const SUITE = 'web-signup-code';

/** The id of the element with the focus (a string: this file is compiled without the DOM library). */
const focused = (page: Page) => page.evaluate('document.activeElement && document.activeElement.id');

/** A page's first answers come after its modules load and its calls return: slow on a busy machine. */
const LOADED = { timeout: 10_000 };

describe.runIf(!chromiumInstalled && process.env.CI === 'true')(
  'web sign-up by code in Chromium (CI)',
  () => {
    it('needs Chromium in CI', () => {
      throw new Error(CHROMIUM_MISSING);
    });
  },
);

describe.skipIf(!chromiumInstalled)('web pages in Chromium: sign-up by a code mailed to the address', () => {
  const suite = useWebSuite();

  /** The newest code mail's six digits, read from the outbox. */
  async function codeOf(email: string): Promise<string> {
    return codeFromText((await codeMails(suite.ctx, email)).at(-1)?.text);
  }

  const WORDS = {
    en: {
      email: 'Email',
      username: 'Username',
      female: 'Female',
      agree: 'I agree to the required terms',
      useCode: 'Email me a code instead of a password',
      usePassword: 'Use a password instead',
      code: 'Code from the email',
      sent: 'Unless an account uses this address already, a 6-digit code is on its way to it. It works for 10 minutes.',
      wrong:
        'This code is wrong, used or expired. Enter the newest code from the email, or ask for a new one.',
      noPassword: 'This account has no password yet. Set one to log in with your email.',
    },
    ko: {
      email: '이메일',
      username: '사용자 이름',
      female: '여성',
      agree: '필수 약관에 모두 동의합니다',
      useCode: '비밀번호 대신 이메일로 코드 받기',
      usePassword: '비밀번호로 가입하기',
      code: '이메일로 받은 코드',
      sent: '이 주소를 쓰는 계정이 없다면 6자리 코드를 보냈습니다. 10분 동안 사용할 수 있습니다.',
      wrong:
        '코드가 맞지 않거나 이미 쓰였거나 시간이 지났습니다. 가장 최근 메일의 코드를 입력하거나 새 코드를 받아 주세요.',
      noPassword: '아직 비밀번호가 없는 계정입니다. 이메일로 로그인하려면 비밀번호를 설정하세요.',
    },
  } as const;

  it.each([
    ['en', 'light'],
    ['ko', 'dark'],
  ] as const)('signs up without a password by the mailed code (%s, %s)', async (lang, colorScheme) => {
    const words = WORDS[lang];
    const { page, problems } = await suite.openPage({ colorScheme });
    await page.goto(`/signup?lang=${lang}`);
    await expect.poll(() => page.locator('#required-documents li').count(), LOADED).toBe(2);
    const email = `signcode${unique()}@example.com`;
    await page.getByLabel(words.email, { exact: true }).fill(email);
    await page.getByLabel(words.username).fill(`code${unique()}`);
    await page.getByLabel(words.female).check();

    // The code chosen: the password field gives way to the code's, which has the focus.
    await page.getByRole('button', { name: words.useCode }).click();
    await expect.poll(() => page.locator('#signup_code-message').textContent(), LOADED).toBe(words.sent);
    const code = page.getByLabel(words.code);
    await expect.poll(() => focused(page)).toBe('signup_code');
    expect(await code.getAttribute('autocomplete')).toBe('one-time-code');
    expect(await code.getAttribute('inputmode')).toBe('numeric');
    expect(await page.locator('#password').isVisible()).toBe(false);
    await lookAt(page, SUITE, `${lang}-${colorScheme}-code-asked`);

    // A wrong code is refused on the code's field, in the page's words.
    const right = await codeOf(email);
    await code.fill(String((Number(right) + 1) % 1_000_000).padStart(6, '0'));
    await page.getByLabel(words.agree).check();
    await page.locator('#signup button[type="submit"]').click();
    await expect.poll(() => page.locator('#signup_code-message').textContent(), LOADED).toBe(words.wrong);
    expect(await code.getAttribute('aria-invalid')).toBe('true');
    await lookAt(page, SUITE, `${lang}-${colorScheme}-code-wrong`);

    await code.fill(right);
    await page.locator('#signup button[type="submit"]').click();
    await page.waitForURL('**/profile');
    await page.goto('/profile#signin');
    await expect.poll(() => page.locator('#password-lead').textContent(), LOADED).toBe(words.noPassword);
    expectNoProblems(problems);
  });

  it('goes back to the password, by keyboard, and signs up with it', async () => {
    const { page, problems } = await suite.openPage({ viewport: { width: 390, height: 844 } });
    await page.goto('/signup?lang=en');
    await expect.poll(() => page.locator('#required-documents li').count(), LOADED).toBe(2);
    const email = `back${unique()}@example.com`;
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByRole('button', { name: 'Email me a code instead of a password' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#signup-code-entry').isVisible(), LOADED).toBe(true);
    await page.getByRole('button', { name: 'Use a password instead' }).focus();
    await page.keyboard.press('Enter');
    // The password is back, focused, and the code field out of the way.
    await expect.poll(() => focused(page)).toBe('password');
    expect(await page.locator('#signup-code-entry').isVisible()).toBe(false);
    await page.keyboard.type(`Quiet-Harbour-${unique()}`);
    await page.getByLabel('Username').fill(`back${unique()}`);
    await page.getByLabel('Male', { exact: true }).check();
    await page.getByLabel('I agree to the required terms').check();
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL('**/profile');
    expectNoProblems(problems);
  });

  it('names a bad address on its field when the code is asked', async () => {
    const { page, problems } = await suite.openPage();
    await page.goto('/signup?lang=en');
    await page.getByLabel('Email', { exact: true }).fill('not-an-address');
    await page.getByRole('button', { name: 'Email me a code instead of a password' }).click();
    await expect.poll(() => page.locator('#email').getAttribute('aria-invalid'), LOADED).toBe('true');
    expect(await page.locator('#email-message').textContent()).toBe(
      'Enter a whole email address, such as name@example.com.',
    );
    expect(await page.locator('#signup-code-entry').isVisible()).toBe(false);
    expectNoProblems(problems);
  });
});
