import { sql } from 'kysely';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { CHROMIUM_MISSING, chromiumInstalled, lookAt, screenshot } from '../helpers/browser.js';
import { buildTestServices } from '../helpers/services.js';
import { enrolledStaff, signedInStaff, staffLogin, testClock } from '../helpers/staff.js';
import { currentCode } from '../helpers/totp.js';
import { useWebSuiteAtOwnOrigin } from '../helpers/web-suite.js';

const SUITE = 'console';
/** A page's first answers come after its modules load and its calls return: slow on a busy machine. */
const LOADED = { timeout: 10_000 };

describe.runIf(!chromiumInstalled && process.env.CI === 'true')('the console in Chromium (CI)', () => {
  it('needs Chromium in CI', () => {
    throw new Error(CHROMIUM_MISSING);
  });
});

describe.skipIf(!chromiumInstalled)('the console in Chromium: enroll, sign in, home', () => {
  // localhost, not 127.0.0.1: a secure context whose host is a domain, as a passkey's RP ID must be.
  const suite = useWebSuiteAtOwnOrigin('localhost');

  /** Types into a field found by its label, as a person tabbing through the form would. */
  const type = async (page: Page, label: RegExp, text: string) => {
    const input = page.getByLabel(label).first();
    await input.focus();
    await page.keyboard.type(text);
  };

  it('enrolls from the link, refuses the link again, signs in with a code, and shows who is signed in', async () => {
    const email = `console${Date.now()}@example.com`;
    const added = await buildTestServices(suite.ctx).staff.add(email, 'support', 'cli:test');
    const link = new URL(added.enrollment_url);
    const { page, problems } = await suite.openPage();

    await page.goto(`${link.pathname}${link.search}`);
    const secretText = page.locator('#enroll-secret');
    await expect.poll(async () => (await secretText.textContent()) ?? '', LOADED).toMatch(/^[A-Z2-7 ]{39}$/);
    const secret = ((await secretText.textContent()) ?? '').replaceAll(' ', '');
    expect(await page.locator('#enroll-who').textContent()).toBe(`Enrolling ${email} as support.`);
    await lookAt(page, SUITE, 'enroll');
    await type(page, /^New password/, 'a staff pass phrase');
    await type(page, /^Authenticator code/, currentCode(secret));
    await page.keyboard.press('Enter');
    await page.locator('#enroll-done').waitFor({ state: 'visible', ...LOADED });
    await lookAt(page, SUITE, 'enrolled');

    await page.reload();
    await expect
      .poll(async () => page.locator('#form-error').textContent(), LOADED)
      .toBe('This enrollment link has been used. Sign in instead.');
    expect(await page.locator('#console-enroll').isHidden()).toBe(true);

    await page.goto('/console');
    await page.waitForURL('**/console/login', LOADED);
    await lookAt(page, SUITE, 'login');
    await type(page, /^Email/, email);
    await type(page, /^Password/, 'a staff pass phrase');
    // The next time step's code: the enrollment's own was used once.
    await type(page, /^Authenticator code/, currentCode(secret, 1));
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/console$/, LOADED);
    await expect.poll(async () => page.locator('#who-email').textContent(), LOADED).toBe(email);
    expect(await page.locator('#who-role').textContent()).toBe('support');
    // Webhooks are admin's alone: the bar never offers them to support.
    expect(await page.locator('a[href="/console/webhooks"]').isHidden()).toBe(true);
    await lookAt(page, SUITE, 'home');
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, SUITE, 'home-dark');

    await page.getByRole('button', { name: 'Sign out' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL('**/console/login', LOADED);
    await page.goto('/console');
    await page.waitForURL('**/console/login', LOADED);
    // Chromium logs the refusals the steps provoked on purpose (the used link, /me signed out): only those.
    expect(
      problems.errors.filter((error) => !/status of (410|401) .*\/admin\/v1\/(enrollment|me)/.test(error)),
    ).toEqual([]);
  }, 60_000);

  it('enrolls a passkey instead of an authenticator app, and signs in with the password and the passkey', async () => {
    const email = `console-passkey${Date.now()}@example.com`;
    const added = await buildTestServices(suite.ctx).staff.add(email, 'viewer', 'cli:test');
    const link = new URL(added.enrollment_url);
    const { page, problems, context } = await suite.openPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
      },
    });

    await page.goto(`${link.pathname}${link.search}`);
    await page.locator('#enroll-who').waitFor({ state: 'visible', ...LOADED });
    await type(page, /^New password/, 'a staff pass phrase');
    // The factor is chosen with the arrow keys, as a radio group is; the app's key and code then go away.
    await page.getByLabel('Authenticator app').focus();
    await page.keyboard.press('ArrowDown');
    expect(await page.getByLabel('Passkey').isChecked()).toBe(true);
    expect(await page.locator('#enroll-totp').isHidden()).toBe(true);
    await lookAt(page, SUITE, 'enroll-passkey');
    await page.getByRole('button', { name: 'Enroll' }).focus();
    await page.keyboard.press('Enter');
    await page.locator('#enroll-done').waitFor({ state: 'visible', ...LOADED });
    await page.goto('/console/login');
    await type(page, /^Email/, email);
    await type(page, /^Password/, 'not the pass phrase');
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await expect
      .poll(async () => page.locator('#form-error').textContent(), LOADED)
      .toMatch(/^The email, password or second factor is wrong/);
    await page.getByLabel(/^Password/).fill('a staff pass phrase');
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.waitForURL(/\/console$/, LOADED);
    await expect.poll(async () => page.locator('#who-email').textContent(), LOADED).toBe(email);
    expect(
      problems.errors.filter((error) => !/status of 401 .*\/admin\/v1\/auth\/login\/passkey\)$/.test(error)),
    ).toEqual([]);
  }, 60_000);

  it('offers admin the webhooks, where an endpoint is added and disabled from the keyboard', async () => {
    const clock = testClock();
    const session = await signedInStaff(suite.ctx, clock, await enrolledStaff(suite.ctx, clock, 'admin'));
    const { page, problems, context } = await suite.openPage();
    await page.goto('/console/login');
    const cookie = { name: 'accounts_staff', value: session.cookie.split('=')[1] as string };
    await context.addCookies([{ ...cookie, url: `${new URL(page.url()).origin}/admin`, httpOnly: true }]);
    await page.goto('/console');
    const nav = page.getByRole('link', { name: 'Webhooks' });
    await nav.waitFor(LOADED);
    await nav.focus();
    await page.keyboard.press('Enter');
    await page.waitForURL('**/console/webhooks', LOADED);
    /** Types the reason into the dialog a change opens, and confirms it. */
    const giveReason = async (reason: string) => {
      await page.locator('#reason-dialog').waitFor({ state: 'visible', ...LOADED });
      await page.keyboard.type(reason);
      await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
    };
    await type(page, /^URL/, 'https://1.1.1.1/hooks');
    await page.keyboard.press('Enter');
    await giveReason('The search index needs sign-ups');
    await expect
      .poll(async () => (await page.locator('#secret').textContent()) ?? '', LOADED)
      .toMatch(/^whsec_/);
    await page.getByRole('button', { name: 'Disable: https://1.1.1.1/hooks' }).focus();
    await page.keyboard.press('Enter');
    await giveReason('The receiver is down');
    await expect
      .poll(async () => page.locator('#endpoints tbody').textContent(), LOADED)
      .toContain('Disabled');
    await lookAt(page, SUITE, 'webhooks');
    expect(problems.errors).toEqual([]);
  });

  it('speaks Korean to a Korean browser, and says why a sign-in is refused', async () => {
    const { page, problems } = await suite.openPage({ locale: 'ko-KR', colorScheme: 'dark' });
    await page.goto('/console/login');
    expect(await page.locator('h1').textContent()).toBe('운영자 로그인');
    await type(page, /^이메일/, 'nobody@example.com');
    await type(page, /^비밀번호/, 'not a pass phrase');
    await type(page, /^인증 코드/, '123456');
    await page.keyboard.press('Enter');
    await expect
      .poll(async () => page.locator('#form-error').textContent(), LOADED)
      .toMatch(/^이메일, 비밀번호 또는 2단계 인증이 올바르지 않습니다/);
    await lookAt(page, SUITE, 'login-ko-dark');
    expect(problems.errors.filter((error) => !/status of 401/.test(error))).toEqual([]);
  });

  it('names the lockout beside a wrong try, refuses a stale CSRF token, and ends an idle session', async () => {
    // The app runs on real time: each member's codes from a clock that starts now (one step ahead at most).
    const locked = await enrolledStaff(suite.ctx, testClock(), 'viewer');
    for (let attempt = 1; attempt <= 4; attempt++) {
      await staffLogin(suite.ctx.app, locked, currentCode(locked.secret), 'wrong pass phrase');
    }
    const { page, problems, context } = await suite.openPage();
    await page.goto('/console/login');
    await type(page, /^Email/, locked.email);
    await type(page, /^Password/, 'wrong pass phrase');
    await type(page, /^Authenticator code/, currentCode(locked.secret));
    await page.keyboard.press('Enter');
    await expect
      .poll(async () => page.locator('#form-error').textContent(), LOADED)
      .toBe(
        'The email, password or second factor is wrong. Five wrong tries in a row lock the account for a while: wait, or ask an admin to unlock it.',
      );
    // Locked now, the right password and code get the same answer and the same words.
    await page
      .getByLabel(/^Password/)
      .first()
      .fill('');
    await type(page, /^Password/, locked.password);
    await type(page, /^Authenticator code/, currentCode(locked.secret));
    const answered = page.waitForResponse((response) => response.url().endsWith('/admin/v1/auth/login'));
    await page.keyboard.press('Enter');
    expect((await answered).status()).toBe(401);
    await expect
      .poll(async () => page.locator('#form-error').textContent(), LOADED)
      .toMatch(/^The email, password/);
    expect(page.url()).toMatch(/\/console\/login$/);

    // Signed in as one member; the cookie then changes to another's session under the open page.
    const cookieOf = async (role: string) => {
      const clock = testClock();
      const member = await enrolledStaff(suite.ctx, clock, role);
      const session = await signedInStaff(suite.ctx, clock, member);
      return { member, token: session.cookie.split('=')[1] as string };
    };
    const { origin } = new URL(page.url());
    const setCookie = (value: string) =>
      context.addCookies([
        { name: 'accounts_staff', value, url: `${origin}/admin`, httpOnly: true, sameSite: 'Strict' },
      ]);
    const first = await cookieOf('support');
    const second = await cookieOf('viewer');
    await setCookie(first.token);
    await page.goto('/console');
    await expect.poll(async () => page.locator('#who-email').textContent(), LOADED).toBe(first.member.email);
    await setCookie(second.token);
    await page.getByRole('button', { name: 'Sign out' }).focus();
    await page.keyboard.press('Enter');
    await expect
      .poll(async () => page.locator('#sign-out [role="alert"]').textContent(), LOADED)
      .toBe('The page is out of date. Reload it and try again.');
    await page.reload();
    await expect.poll(async () => page.locator('#who-email').textContent(), LOADED).toBe(second.member.email);

    // Unused for CONSOLE_IDLE_TIMEOUT (30 minutes): the next page is the sign-in.
    await sql`UPDATE staff_sessions SET last_seen_at = last_seen_at - interval '31 minutes'
      WHERE staff_id = ${second.member.id}`.execute(suite.ctx.database.handle.db);
    await page.goto('/console');
    await page.waitForURL('**/console/login', LOADED);
    // Chromium logs the refusals provoked on purpose: the locked sign-in, the stale token, the idle /me.
    expect(
      problems.errors.filter(
        (error) => !/status of (401|403) .*\/admin\/v1\/(auth\/login|auth\/logout|me)/.test(error),
      ),
    ).toEqual([]);
  });
});
