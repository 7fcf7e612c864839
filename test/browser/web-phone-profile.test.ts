import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_MISSING, chromiumInstalled, expectNoProblems, lookAt } from '../helpers/browser.js';
import { bearer, registerUser } from '../helpers/factories.js';
import { expectOk } from '../helpers/http.js';
import { type FakeSolapi, newMobile, startFakeSolapi } from '../helpers/solapi.js';
import { useWebSuite } from '../helpers/web-suite.js';

const SUITE = 'web-phone-profile';

/** A page's first answers come after its modules load and its calls return: slow on a busy machine. */
const LOADED = { timeout: 10_000 };

/** The id of the element with the focus (a string: this file is compiled without the DOM library). */
const focused = (page: Page) => page.evaluate('document.activeElement && document.activeElement.id');

describe.runIf(!chromiumInstalled && process.env.CI === 'true')('web profile phone in Chromium (CI)', () => {
  it('needs Chromium in CI', () => {
    throw new Error(CHROMIUM_MISSING);
  });
});

describe.skipIf(!chromiumInstalled)('web pages in Chromium: the mobile number on the profile', () => {
  let solapi: FakeSolapi;
  beforeAll(async () => {
    solapi = await startFakeSolapi();
  });
  const suite = useWebSuite(() => solapi.env());
  afterAll(async () => {
    await solapi.close();
  });

  /** The last code texted to `national` (`01012345678`), once the outbox has sent it. */
  async function textedCode(national: string): Promise<string> {
    await suite.ctx.infrastructure.sms.idle();
    return solapi.codeFor(national);
  }

  async function userOf(token: string): Promise<Record<string, unknown>> {
    const res = await suite.ctx.app.inject({ method: 'GET', url: '/dev/user/get', headers: bearer(token) });
    return expectOk<{ user: Record<string, unknown> }>(res).user;
  }

  it('adds a number after the confirmation, verifies it, changes it and removes it (en)', async () => {
    const me = await registerUser(suite.ctx.app);
    const first = newMobile();
    const { page, problems } = await suite.openSignedIn(me.token, { viewport: { width: 390, height: 844 } });
    await page.goto('/profile?lang=en#signin');
    const state = page.locator('#phone-state');
    await expect.poll(() => state.textContent(), LOADED).toBe('No mobile number yet.');

    // Typed as digits, shown formatted; the first send asks for the confirmation, which then sends it.
    await page.getByRole('textbox', { name: 'Mobile number', exact: true }).pressSequentially(first.national);
    expect(await page.locator('#phone').inputValue()).toBe(first.typed);
    await page.getByRole('button', { name: 'Text me a code' }).click();
    await expect
      .poll(() => page.locator('#phone-add .error').textContent(), LOADED)
      .toBe('First confirm it is you, with your password or a passkey.');
    await page.locator('#reauth_password').fill(me.password);
    await page.getByRole('button', { name: 'Confirm', exact: true }).click();
    await expect
      .poll(() => page.locator('#phone-verify .status').textContent(), LOADED)
      .toBe(`A 6-digit code is on its way to ${first.typed} by text message.`);
    expect(await focused(page)).toBe('phone_code');
    const codeField = page.getByLabel('Code from the text message');
    expect(await codeField.getAttribute('autocomplete')).toBe('one-time-code');
    expect(await codeField.getAttribute('inputmode')).toBe('numeric');
    expect(await state.textContent()).toBe(`Your number: ${first.typed} (not verified)`);

    // A wrong code is named on its field; the right one verifies the number.
    const code = await textedCode(first.national);
    await codeField.fill(String((Number(code) + 1) % 1_000_000).padStart(6, '0'));
    await page.keyboard.press('Enter');
    await expect
      .poll(() => page.locator('#phone_code-message').textContent(), LOADED)
      .toBe(
        'The code is wrong or has expired. Enter the newest code from the text message, or ask for a new one.',
      );
    expect(await codeField.getAttribute('aria-invalid')).toBe('true');
    await lookAt(page, SUITE, 'en-code-wrong');
    await codeField.fill(code);
    await page.keyboard.press('Enter');
    await expect.poll(() => state.textContent(), LOADED).toBe(`Your number: ${first.typed} (verified)`);
    expect(await page.locator('#phone-add .status').textContent()).toBe(
      'Your mobile number is verified: you can log in with it.',
    );
    expect(await page.locator('#phone-verify').isVisible()).toBe(false);
    expect(await userOf(me.token)).toMatchObject({ phone: first.e164, phone_verified: true });
    await lookAt(page, SUITE, 'en-verified');

    // Changed: the field is now for the new number, sent within the confirmation's window.
    const second = newMobile();
    await page.getByRole('textbox', { name: 'New mobile number' }).fill(second.typed);
    await page.getByRole('button', { name: 'Text me a code' }).click();
    await expect.poll(() => state.textContent(), LOADED).toBe(`Your number: ${second.typed} (not verified)`);
    await codeField.fill(await textedCode(second.national));
    await page.getByRole('button', { name: 'Verify the number' }).click();
    await expect.poll(() => state.textContent(), LOADED).toBe(`Your number: ${second.typed} (verified)`);

    await page.getByRole('button', { name: 'Remove the number' }).click();
    await expect.poll(() => state.textContent(), LOADED).toBe('No mobile number yet.');
    expect(await page.locator('#phone-add .status').textContent()).toBe('Your mobile number is removed.');
    expect(await page.locator('#phone-remove').isVisible()).toBe(false);
    expect(await userOf(me.token)).toMatchObject({ phone: null, phone_verified: false });
    expectNoProblems(problems);
  });

  it('names a landline on its field and a number verified elsewhere on the form, in Korean (dark)', async () => {
    const owner = await registerUser(suite.ctx.app);
    const taken = newMobile();
    await suite.ctx.database.handle.db
      .updateTable('users')
      .set({ phone: taken.e164, phone_verified: true })
      .where('id', '=', owner.id)
      .execute();
    const me = await registerUser(suite.ctx.app);
    const { page, problems } = await suite.openSignedIn(me.token, { locale: 'ko-KR', colorScheme: 'dark' });
    await page.goto('/profile?lang=ko#signin');
    await expect
      .poll(() => page.locator('#phone-state').textContent(), LOADED)
      .toBe('아직 등록된 휴대전화 번호가 없습니다.');
    await page.locator('#reauth_password').fill(me.password);
    await page.getByRole('button', { name: '확인', exact: true }).click();
    await expect.poll(() => page.locator('#reauth-state').isVisible(), LOADED).toBe(true);

    const field = page.getByRole('textbox', { name: '휴대전화 번호', exact: true });
    await field.fill('02-123-4567');
    await page.getByRole('button', { name: '문자로 코드 받기' }).click();
    await expect
      .poll(() => page.locator('#phone-message').textContent(), LOADED)
      .toBe('휴대전화 번호가 아닙니다. 휴대전화의 번호를 입력해 주세요.');
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    expect(await focused(page)).toBe('phone');
    await lookAt(page, SUITE, 'ko-dark-landline');

    await field.fill(taken.typed);
    await page.getByRole('button', { name: '문자로 코드 받기' }).click();
    await expect
      .poll(() => page.locator('#phone-add .error').textContent(), LOADED)
      .toBe('다른 계정이 이미 이 휴대전화 번호를 쓰고 있습니다.');
    await lookAt(page, SUITE, 'ko-dark-in-use');
    expectNoProblems(problems);
  });
});
