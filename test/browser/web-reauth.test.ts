import { describe, expect, it } from 'vitest';
import { CHROMIUM_MISSING, chromiumInstalled, expectNoProblems, lookAt } from '../helpers/browser.js';
import { registerUser, unique } from '../helpers/factories.js';
import { awayFromStepEdge, enableTotp } from '../helpers/second-factor.js';
import { currentCode } from '../helpers/totp.js';
import { useWebSuiteAtOwnOrigin } from '../helpers/web-suite.js';

const SUITE = 'web-reauth';

describe.runIf(!chromiumInstalled && process.env.CI === 'true')(
  'web re-authentication in Chromium (CI)',
  () => {
    it('needs Chromium in CI', () => {
      throw new Error(CHROMIUM_MISSING);
    });
  },
);

/**
 * On an account with two-step verification, adding a passkey or changing the email needs the code beside the
 * password: the confirmation panel asks for it, and once confirmed the change that asked goes through.
 */
describe.skipIf(!chromiumInstalled)('web pages in Chromium: re-authentication with the second factor', () => {
  // localhost, not 127.0.0.1: a secure context whose host is a domain, as a WebAuthn RP ID must be.
  const suite = useWebSuiteAtOwnOrigin('localhost');

  it('asks for the code when a password-only window cannot add a passkey, then adds it', async () => {
    const me = await enableTotp(suite.ctx.app, await registerUser(suite.ctx.app));
    const { page, problems, context } = await suite.openSignedIn(me.token);
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
    await page.goto('/profile#security');
    await expect.poll(() => page.locator('#totp-state').textContent()).toMatch(/^On:/);
    const code = page.getByLabel('Code from your authenticator app');
    expect(await code.isVisible()).toBe(true);
    expect(await code.getAttribute('autocomplete')).toBe('one-time-code');
    expect(await code.getAttribute('inputmode')).toBe('numeric');

    // The password alone opens a window: enough for a new password, not for a new way to sign in.
    await page.locator('#reauth_password').fill(me.password);
    await page.getByRole('button', { name: 'Confirm', exact: true }).click();
    await expect.poll(() => page.locator('#reauth-state').textContent()).toMatch(/^Confirmed until/);
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    const needed =
      'Adding or removing a way to log in needs two-step verification too: enter the code from your ' +
      'authenticator app (or a recovery code) with your password, or confirm with a passkey.';
    await expect.poll(() => page.locator('#reauth_code-message').textContent()).toBe(needed);
    expect(await page.locator('#passkey-add .error[role="alert"]').textContent()).toBe(needed);
    expect(await page.locator('#reauth-form').isVisible()).toBe(true);
    expect(await page.locator('#passkeys li').count()).toBe(0);
    await lookAt(page, SUITE, 'profile-reauth-code');

    // A wrong code is said under the code; the right one opens the window, and the passkey is added.
    await page.locator('#reauth_password').fill(me.password);
    const wrong = currentCode(me.secret) === '000000' ? '111111' : '000000';
    await code.fill(wrong);
    await page.getByRole('button', { name: 'Confirm', exact: true }).click();
    await expect
      .poll(() => page.locator('#reauth_code-message').textContent())
      .toBe('The code is wrong or has expired. Enter the newest code from your app.');
    await awayFromStepEdge();
    await page.locator('#reauth_password').fill(me.password);
    await code.fill(currentCode(me.secret));
    const confirmation = page.waitForRequest(
      (request) => request.url().endsWith('/user/reauth') && request.method() === 'POST',
    );
    await page.getByRole('button', { name: 'Confirm', exact: true }).click();
    expect(JSON.parse((await confirmation).postData() ?? '')).toEqual({
      current_password: me.password,
      code: currentCode(me.secret),
    });
    await expect.poll(() => page.locator('#passkey-add .status').textContent()).toBe('Passkey added.');
    await expect.poll(() => page.locator('#passkeys li').count()).toBe(1);
    expect(await page.locator('#passkey-add .error[role="alert"]').textContent()).toBe('');
    expectNoProblems(problems);
  });

  it('changes the email in Korean with the password and a recovery code', async () => {
    const me = await enableTotp(suite.ctx.app, await registerUser(suite.ctx.app));
    const { page, problems } = await suite.openSignedIn(me.token, { locale: 'ko-KR' });
    await page.goto('/profile');
    await expect.poll(() => page.locator('#email').inputValue()).toBe(me.email);
    const moved = `moved${unique()}@example.com`;
    await page.locator('#email').fill(moved);
    // The details section learns of the second factor from the two-factor card's state.
    const code = page.locator('#reauth_code');
    await expect.poll(() => code.isVisible()).toBe(true);
    await page.locator('#reauth-code-kind').click();
    expect(await page.locator('label[for="reauth_code"]').textContent()).toBe('복구 코드');
    expect(await code.getAttribute('inputmode')).toBe('text');
    await page.locator('#reauth_password').fill(me.password);
    await code.fill(me.recoveryCodes[0] ?? '');
    const confirmation = page.waitForRequest(
      (request) => request.url().endsWith('/user/reauth') && request.method() === 'POST',
    );
    await page.locator('#profile button[type="submit"]').click();
    expect(JSON.parse((await confirmation).postData() ?? '')).toEqual({
      current_password: me.password,
      recovery_code: me.recoveryCodes[0],
    });
    await expect.poll(() => page.locator('#profile .status').textContent()).toContain(moved);
    expect(await page.locator('#reauth_code-message').textContent()).toBe('');
    expectNoProblems(problems);
  });
});
