import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { CHROMIUM_MISSING, chromiumInstalled, type PageProblems, screenshot } from '../helpers/browser.js';
import { bearer, registerUser } from '../helpers/factories.js';
import { expectOk, postForm } from '../helpers/http.js';
import { latestToken } from '../helpers/mail.js';
import { enableTotp } from '../helpers/second-factor.js';
import { useWebSuite } from '../helpers/web-suite.js';

const SUITE = 'web-languages';

/** A page's first answers come after its modules load and its calls return: slow on a busy machine. */
const LOADED = { timeout: 10_000 };

type Locale = 'ko' | 'en';

/** A desktop Chrome's user agent, named by the server "Chrome 131 · Linux". */
const CHROME_ON_LINUX =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

/** Every line a page writes its outcomes in: field messages, form results, hints, the panel's state. */
const OUTCOME_LINES =
  '.message, .status, .error, .strength, [data-passkey-note], #reauth-state, #deletion-date';

/** Names, codes and addresses a Korean sentence may hold: what is left must be Hangul. */
const ALLOWED_ON_KOREAN =
  /\S+@\S+|\b(localhost|Chrome|Linux|Safari|iPhone|iOS|SMS|API|zip|JPEG|PNG|GIF)\b|\d+(\.\d+){3}/g;

/** A placeholder particle, `은(는)` and the like: machine-made Korean. */
const PLACEHOLDER = /\((은|는|이|가|을|를|과|와|으)\)/;

/** The texts of the page's outcome lines that say something, and the main element's whole text. */
async function pageTexts(page: Page): Promise<{ lines: string[]; main: string }> {
  const lines = await page.locator(OUTCOME_LINES).allTextContents();
  const main = (await page.locator('main').textContent()) ?? '';
  return { lines: lines.map((text) => text.trim()).filter((text) => text !== ''), main };
}

/** No line in the other language, no placeholder particle anywhere; `expected` must be among the lines. */
async function expectReadable(page: Page, locale: Locale, expected: RegExp): Promise<void> {
  await expect
    .poll(async () => (await pageTexts(page)).lines.some((line) => expected.test(line)), LOADED)
    .toBe(true);
  const { lines, main } = await pageTexts(page);
  for (const line of lines) {
    if (locale === 'ko') expect(line.replace(ALLOWED_ON_KOREAN, ''), line).not.toMatch(/[A-Za-z]{3,}/);
    else expect(line, line).not.toMatch(/[가-힣]/);
  }
  expect(main).not.toMatch(PLACEHOLDER);
}

/** The next call of `path` answers `status` with `data`, as a server in that state would. */
async function answerOnce(page: Page, path: string, status: number, data: Record<string, unknown>) {
  await page.route(
    `**/dev${path}`,
    (route) =>
      route.fulfill({
        status,
        contentType: 'application/json',
        body: JSON.stringify({
          meta: { code: status, error_type: 'X', error_message: 'English only.' },
          data,
        }),
      }),
    { times: 1 },
  );
}

/** Chromium reports a 5xx the page provoked on purpose as a console error: only those are let through. */
function expectOnlyProvokedProblems(problems: PageProblems): void {
  expect(problems.errors.filter((error) => !/status of 5\d\d/.test(error))).toEqual([]);
}

const WORDS = {
  ko: {
    credentials: /^이메일 또는 비밀번호가 맞지 않습니다/,
    scheduled: /삭제될 예정인 계정/,
    tooMany: /^시도가 너무 많습니다. 2분 뒤에/,
    disabled: /^이용이 정지된 계정/,
    unavailable: /^서비스가 잠시 바쁘거나/,
    passkeyNote: /IP 주소에서는 패스키를 쓸 수 없습니다/,
    taken: /^이미 쓰이고 있는 .+다른 .+정해 주세요\.$/,
    common: /^너무 흔하거나 이메일·사용자 이름과 비슷한 비밀번호입니다/,
    weak: /^약함/,
    linkUsed: /^이미 사용했거나 기한이 지난 링크/,
    noToken: /^링크가 완전하지 않습니다/,
    reauth: /^먼저 비밀번호나 패스키로 본인 확인/,
    wrongPassword: /^비밀번호가 맞지 않습니다/,
    differ: /^새 비밀번호 두 개가 서로 다릅니다/,
    mismatch: /^계정을 삭제하려면/,
    server: /^서버에서 문제가 생겼습니다/,
    badCode: /^코드가 맞지 않거나 시간이 지났습니다/,
    notImage: /^JPEG, PNG, GIF 사진을 골라 주세요/,
    device: /^Linux의 Chrome \d+$/,
    enabled: '2단계 인증 켜짐',
  },
  en: {
    credentials: /^Wrong email or password/,
    scheduled: /scheduled for deletion on/,
    tooMany: /^Too many attempts. Wait 2 minutes/,
    disabled: /^This account has been disabled/,
    unavailable: /^The service is busy/,
    passkeyNote: /^Passkeys do not work at an IP address such as 127\.0\.0\.1/,
    taken: /^This .+ is taken\. Choose another\.$/,
    common: /^This password is too common/,
    weak: /^Weak/,
    linkUsed: /^This link has already been used or has expired/,
    noToken: /^This link is incomplete/,
    reauth: /^First confirm it is you/,
    wrongPassword: /^The password is wrong/,
    differ: /^The two new passwords are not the same/,
    mismatch: /^Type “delete my account” exactly/,
    server: /^Something went wrong on our side/,
    badCode: /^The code is wrong or has expired/,
    notImage: /^Choose a JPEG, PNG or GIF picture/,
    device: /^Chrome \d+ on Linux$/,
    enabled: 'Two-step verification turned on',
  },
} as const;

describe.runIf(!chromiumInstalled && process.env.CI === 'true')('web languages in Chromium (CI)', () => {
  it('needs Chromium in CI', () => {
    throw new Error(CHROMIUM_MISSING);
  });
});

describe.skipIf(!chromiumInstalled)(
  'web pages in Chromium: every error state in the reader’s language',
  () => {
    const suite = useWebSuite();

    for (const locale of ['ko', 'en'] as const) {
      const words = WORDS[locale];
      const browserLocale = locale === 'ko' ? 'ko-KR' : 'en-US';

      it(`signs in, signs up and asks for links in ${locale}, never in the other language`, async () => {
        const me = await registerUser(suite.ctx.app);
        const leaving = await registerUser(suite.ctx.app);
        expectOk(
          await postForm(
            suite.ctx.app,
            '/dev/user/delete',
            { current_password: leaving.password },
            bearer(leaving.token),
          ),
        );
        const { page, problems } = await suite.openPage({ locale: browserLocale });

        await page.goto('/login');
        // The README's address is an IP: passkeys cannot work there, and the page says why instead of failing.
        await expectReadable(page, locale, words.passkeyNote);
        expect(await page.locator('#passkey-login-button').isVisible()).toBe(false);
        await page.locator('#email').fill(me.email);
        await page.locator('#password').fill('not my password');
        await page.locator('#login button[type="submit"]').click();
        await expectReadable(page, locale, words.credentials);
        await screenshot(page, SUITE, `${locale}-login-wrong-password`);
        await page.locator('#email').fill(leaving.email);
        await page.locator('#password').fill(leaving.password);
        await page.locator('#login button[type="submit"]').click();
        await expectReadable(page, locale, words.scheduled);
        for (const [status, data, expected] of [
          [429, { retry_after: 120 }, words.tooMany],
          [401, { status: 'account_disabled' }, words.disabled],
          [503, {}, words.unavailable],
        ] as const) {
          await answerOnce(page, '/auth/login/email', status, data);
          await page.locator('#login button[type="submit"]').click();
          await expectReadable(page, locale, expected);
        }

        await page.goto('/signup');
        await page.locator('#username').fill(me.username);
        await expectReadable(page, locale, words.taken);
        await page.locator('#password').fill('password');
        await expectReadable(page, locale, words.weak);
        await page.locator('#signup button[type="submit"]').click();
        await expectReadable(page, locale, words.common);
        await screenshot(page, SUITE, `${locale}-signup-refused`);

        await page.goto('/forgot-password');
        await answerOnce(page, '/auth/password/forgot', 429, { retry_after: 120 });
        await page.locator('#email').fill(me.email);
        await page.locator('#forgot button[type="submit"]').click();
        await expectReadable(page, locale, words.tooMany);

        for (const path of ['/reset-password', '/verify-email', '/cancel-deletion']) {
          await page.goto(`${path}?token=not-a-real-token`);
          if (path === '/reset-password')
            await page.locator('#password').fill(`Bright-Lantern-${me.username}`);
          await page.locator('main button[type="submit"]').first().click();
          await expectReadable(page, locale, words.linkUsed);
        }
        await page.goto('/verify-email');
        await expectReadable(page, locale, words.noToken);
        await screenshot(page, SUITE, `${locale}-verify-no-token`);
        await page.goto('/cancel-deletion');
        await page.locator('#email').fill(me.email);
        await page.locator('#password').fill('not my password');
        await page.locator('#cancel-deletion button[type="submit"]').click();
        await expectReadable(page, locale, words.credentials);
        expectOnlyProvokedProblems(problems);
      });

      it(`refuses on /profile in ${locale}, each result beside its button`, async () => {
        const me = await enableTotp(suite.ctx.app, await registerUser(suite.ctx.app));
        const other = await registerUser(suite.ctx.app);
        const { page, problems } = await suite.openSignedIn(me.token, { locale: browserLocale });
        await page.goto('/profile');
        await expect.poll(() => page.locator('#email').inputValue(), LOADED).toBe(me.email);
        await page.locator('#slug').fill(other.slug);
        await expectReadable(page, locale, words.taken);

        await page.goto('/profile#signin');
        const strong = `Bright-Lantern-${me.username}`;
        await page.locator('#new_password').fill(strong);
        await page.locator('#new_password_again').fill(`${strong}!`);
        await page.locator('#password-change button[type="submit"]').click();
        await expectReadable(page, locale, words.differ);
        await page.locator('#new_password_again').fill(strong);
        await page.locator('#password-change button[type="submit"]').click();
        await expectReadable(page, locale, words.reauth);
        await page.locator('#reauth_password').fill('not my password');
        await page.locator('#password-change button[type="submit"]').click();
        await expectReadable(page, locale, words.wrongPassword);
        await page.locator('#reauth_password').fill(me.password);
        await page.locator('#new_password').fill('password');
        await page.locator('#new_password_again').fill('password');
        await page.locator('#password-change button[type="submit"]').click();
        await expectReadable(page, locale, words.common);
        // About the new password, under it: the confirmation panel's field has nothing to say.
        expect(await page.locator('#new_password-message').textContent()).toMatch(words.common);
        expect(await page.locator('#reauth_password-message').textContent()).toBe('');
        await screenshot(page, SUITE, `${locale}-profile-password-common`);

        await page.goto('/profile#security');
        await page.locator('#manage_code').fill('000000');
        await page.locator('#totp-manage button[value="disable"]').click();
        await expectReadable(page, locale, words.badCode);

        await page.goto('/profile#details');
        await page.locator('#profile_picture').setInputFiles({
          name: 'notes.txt',
          mimeType: 'text/plain',
          buffer: Buffer.from('not a picture'),
        });
        await page.locator('#picture button[type="submit"]').click();
        await expectReadable(page, locale, words.notImage);

        await page.goto('/profile#data');
        await page.locator('#delete-account button[type="submit"]').click();
        await expectReadable(page, locale, words.mismatch);
        await answerOnce(page, '/user/export', 500, {});
        await page.locator('#data-export button[type="submit"]').click();
        await expectReadable(page, locale, words.server);

        // Activity names every kind of event, and the device in the page's word order.
        await page.goto('/profile#activity');
        await expect
          .poll(() => page.locator('#activity .device').allTextContents(), LOADED)
          .toContain(words.enabled);
        expect(await page.locator('#activity').textContent()).not.toMatch(/Other activity|기타 활동/);
        await screenshot(page, SUITE, `${locale}-profile-activity`);
        expectOnlyProvokedProblems(problems);
      });
    }

    it('continues a two-factor account’s password reset into the code step and ends signed in (ko)', async () => {
      const me = await enableTotp(suite.ctx.app, await registerUser(suite.ctx.app));
      await postForm(suite.ctx.app, '/dev/auth/password/forgot', { email: me.email });
      await suite.ctx.mailer.idle();
      const token = await latestToken(suite.ctx.database.handle, me.email, 'password_reset');
      const { page, problems } = await suite.openPage({ locale: 'ko-KR', userAgent: CHROME_ON_LINUX });
      await page.goto(`/reset-password?token=${token}`);
      await page.locator('#password').fill(`Bright-Lantern-${me.username}`);
      await page.locator('#reset button[type="submit"]').click();
      const code = page.locator('#code');
      await expect.poll(() => code.isVisible(), LOADED).toBe(true);
      expect(await page.locator('#reset').isVisible()).toBe(false);
      expect(await page.locator('#second-factor .error').textContent()).toBe('');
      await screenshot(page, SUITE, 'ko-reset-second-factor');
      await code.fill('000000');
      await page.locator('#second-factor button[type="submit"]').click();
      await expectReadable(page, 'ko', /./);
      // A recovery code: no wait for a fresh authenticator step.
      await code.fill(me.recoveryCodes[0] ?? '');
      await page.locator('#second-factor button[type="submit"]').click();
      await page.waitForURL('**/profile');
      await page.getByRole('link', { name: '활동과 기기' }).click();
      await expect
        .poll(() => page.locator('#sessions .device').first().textContent(), LOADED)
        .toMatch(WORDS.ko.device);
      await screenshot(page, SUITE, 'ko-reset-signed-in-devices');
      expectOnlyProvokedProblems(problems);
    });
  },
);
