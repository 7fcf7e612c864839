import { describe, expect, it } from 'vitest';
import { CHROMIUM_MISSING, chromiumInstalled, expectNoProblems, lookAt } from '../helpers/browser.js';
import { registerUser } from '../helpers/factories.js';
import { awayFromStepEdge, enableTotp } from '../helpers/second-factor.js';
import { currentCode } from '../helpers/totp.js';
import { useWebSuiteAtOwnOrigin } from '../helpers/web-suite.js';

const SUITE = 'web-security';

describe.runIf(!chromiumInstalled && process.env.CI === 'true')('web security pages in Chromium (CI)', () => {
  it('needs Chromium in CI', () => {
    throw new Error(CHROMIUM_MISSING);
  });
});

describe.skipIf(!chromiumInstalled)('web pages in Chromium: passkeys and the second factor', () => {
  // localhost, not 127.0.0.1: a secure context whose host is a domain, as a WebAuthn RP ID must be.
  const suite = useWebSuiteAtOwnOrigin('localhost');

  it('adds a passkey on /profile, renames it, signs out and signs in with it on /login', async () => {
    const me = await registerUser(suite.ctx.app);
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
    await expect.poll(() => page.locator('#no-passkeys').isVisible()).toBe(true);

    // The API re-authenticates first: a wrong password is a message under the confirmation panel's field.
    await page.locator('#reauth_password').fill('not my password');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await expect
      .poll(() => page.locator('#reauth_password-message').textContent())
      .toBe('The password is wrong.');

    await page.locator('#reauth_password').fill(me.password);
    await page.getByLabel('Name of the passkey (optional)').fill('Test laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    const status = page.locator('#passkey-add .status');
    await expect.poll(() => status.textContent()).toBe('Passkey added.');
    await expect.poll(() => page.locator('#passkeys .device').allTextContents()).toEqual(['Test laptop']);

    await page.getByRole('button', { name: 'Rename: Test laptop' }).click();
    await page.getByLabel('New name of the passkey').fill('<b>Work</b> laptop');
    await page.getByLabel('New name of the passkey').press('Enter');
    // textContent: a name with markup stays text.
    await expect
      .poll(() => page.locator('#passkeys .device').allTextContents())
      .toEqual(['<b>Work</b> laptop']);
    await lookAt(page, SUITE, 'profile-passkey');

    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL('**/login');
    await page.getByRole('button', { name: 'Log in with a passkey' }).click();
    await page.waitForURL('**/profile');
    await expect.poll(() => page.locator('#email').inputValue()).toBe(me.email);
    await page.getByRole('link', { name: 'Two-step verification and passkeys' }).click();
    await expect
      .poll(() => page.locator('#passkeys .meta').first().textContent())
      .toMatch(/^added .+ · last used .+\d/);

    // A passkey proves it is the owner as well as the password does.
    await page.getByRole('button', { name: 'Confirm with a passkey' }).click();
    await expect.poll(() => page.locator('#reauth-state').textContent()).not.toBe('');
    await page.getByRole('button', { name: 'Remove: <b>Work</b> laptop' }).click();
    await expect.poll(() => status.textContent()).toBe('Passkey removed.');
    await expect.poll(() => page.locator('#passkeys li').count()).toBe(0);
    expectNoProblems(problems);
  });

  it('sets up the authenticator app on /profile, then a login asks for its code', async () => {
    const me = await registerUser(suite.ctx.app);
    const { page, problems } = await suite.openSignedIn(me.token);
    await page.goto('/profile#security');
    await expect.poll(() => page.locator('#totp-state').textContent()).toBe('Off.');
    await page.locator('#reauth_password').fill(me.password);
    await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
    const secret = page.locator('#totp-secret');
    // In groups of four, as it is typed into an app by hand.
    await expect.poll(() => secret.textContent()).toMatch(/^([A-Z2-7]{4} ){3,}[A-Z2-7]{1,4}$/);
    // The QR code is the API's SVG as an image: loaded, and nothing of it in the document.
    await expect
      .poll(() => page.evaluate(`document.getElementById('totp-qr').naturalWidth`))
      .toBeGreaterThan(0);
    expect(await page.locator('#totp-enable svg').count()).toBe(0);
    await lookAt(page, SUITE, 'profile-totp-setup');

    await page.getByLabel('Code from the app', { exact: true }).fill('000000');
    await page.getByRole('button', { name: 'Turn on' }).click();
    await expect.poll(() => page.locator('#totp_code-message').textContent()).not.toBe('');

    await awayFromStepEdge();
    // The previous step's code: this step's stays unused for the login below (each step works once).
    const base32 = (await secret.getAttribute('data-secret')) ?? '';
    await page.getByLabel('Code from the app', { exact: true }).fill(currentCode(base32, -1));
    await page.getByRole('button', { name: 'Turn on' }).click();
    await expect.poll(() => page.locator('#recovery-list li').count()).toBe(10);
    await expect
      .poll(() => page.locator('#totp-state').textContent())
      .toMatch(/^On: .*Recovery codes left: 10$/);
    expect(await page.locator('#recovery-download').getAttribute('href')).toMatch(/^blob:/);
    await lookAt(page, SUITE, 'profile-totp-on');

    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL('**/login');
    await page.getByLabel('Email').fill(me.email);
    await page.getByLabel('Password').fill(me.password);
    await page.getByRole('button', { name: 'Log in', exact: true }).click();
    const code = page.getByLabel('Code or recovery code');
    await expect.poll(() => code.isVisible()).toBe(true);
    expect(await page.locator('#login').isVisible()).toBe(false);
    await lookAt(page, SUITE, 'login-second-factor');

    await code.fill('not-a-code');
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect.poll(() => page.locator('#code-message').textContent()).not.toBe('');
    await code.fill(currentCode(base32));
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL('**/profile');
    await expect.poll(() => page.locator('#totp-state').textContent()).toMatch(/Recovery codes left: 10$/);
    expectNoProblems(problems);
  });

  it('signs in with a recovery code, and a dead challenge sends the user back to start over', async () => {
    const me = await registerUser(suite.ctx.app);
    const { recoveryCodes } = await enableTotp(suite.ctx.app, me);
    const { page, problems } = await suite.openPage({ locale: 'ko-KR' });
    await page.goto('/login');
    await page.locator('#email').fill(me.email);
    await page.locator('#password').fill(me.password);
    await page.locator('#login button[type="submit"]').click();
    const code = page.locator('#code');
    await expect.poll(() => code.isVisible()).toBe(true);
    // Five wrong codes kill the challenge: the sixth try is told to start over.
    for (let attempt = 0; attempt < 5; attempt += 1) {
      await code.fill(`wrong-${attempt}`);
      await page.locator('#second-factor button[type="submit"]').click();
      await expect.poll(() => page.locator('#code-message').textContent()).not.toBe('');
      await code.fill('');
    }
    await code.fill(recoveryCodes[0] ?? '');
    await page.locator('#second-factor button[type="submit"]').click();
    await expect.poll(() => page.locator('#start-over').isVisible()).toBe(true);
    expect(await page.locator('#second-factor .error').textContent()).toBe(
      '이 단계가 만료되었습니다. 다시 로그인해 주세요.',
    );
    await lookAt(page, SUITE, 'login-second-factor-expired-ko');
    // The page loads again: its form is the script's once the load is over (not when it first shows).
    const loaded = page.waitForEvent('load');
    await page.locator('#start-over').click();
    await loaded;
    await page.locator('#email').fill(me.email);
    await page.locator('#password').fill(me.password);
    await page.locator('#login button[type="submit"]').click();
    await expect.poll(() => code.isVisible()).toBe(true);
    await code.fill(recoveryCodes[0] ?? '');
    await page.locator('#second-factor button[type="submit"]').click();
    await page.waitForURL('**/profile');
    await expect.poll(() => page.locator('#totp-state').textContent()).toMatch(/9$/);
    expectNoProblems(problems);
  });

  it('confirms once for the session’s window: a change then sends no proof, a closed window asks again', async () => {
    const me = await registerUser(suite.ctx.app);
    const { page, problems } = await suite.openSignedIn(me.token);
    // The window as user/reauth opens it; this server's own sensitive endpoints still decide.
    const until = new Date(Date.now() + 10 * 60_000).toISOString();
    let confirmation = '';
    await page.route('**/dev/user/reauth', (route) => {
      confirmation = route.request().postData() ?? '';
      return route.fulfill({
        status: 200,
        contentType: 'application/json',
        body: JSON.stringify({ meta: { code: 200 }, data: { reauthenticated_until: until } }),
      });
    });
    await page.goto('/profile#data');
    await page.locator('#reauth_password').fill(me.password);
    await page.getByRole('button', { name: 'Confirm', exact: true }).click();
    const state = page.locator('#reauth-state');
    await expect
      .poll(() => state.textContent())
      .toMatch(/^Confirmed until .+: changes ask for nothing more until then\.$/);
    expect(JSON.parse(confirmation)).toEqual({ current_password: me.password });
    expect(await page.locator('#reauth-form').isVisible()).toBe(false);
    await lookAt(page, SUITE, 'profile-reauth-open');

    // A reload of the tab still shows the window; the next change sends no proof at all.
    await page.reload();
    await expect.poll(() => state.textContent()).toMatch(/^Confirmed until/);
    const sent = page.waitForRequest(
      (request) => request.url().endsWith('/user/export') && request.method() === 'POST',
    );
    await page.getByRole('button', { name: 'Prepare my data' }).click();
    expect(JSON.parse((await sent).postData() ?? '')).toEqual({});
    // The server asked for a proof after all (its window closed): the panel asks again.
    await expect
      .poll(() => state.textContent())
      .toBe('The confirmation has expired. Confirm it is you again.');
    expect(await page.locator('#reauth-form').isVisible()).toBe(true);
    expect(await page.locator('#data-export .error[role="alert"]').textContent()).not.toBe('');
    expectNoProblems(problems);
  });

  it('names the address, not the browser, when the site’s passkeys are set up for another host', async () => {
    const me = await registerUser(suite.ctx.app);
    const { page, problems } = await suite.openSignedIn(me.token);
    // Options for another relying party, as a server whose PUBLIC_URL names another host would send.
    await page.route('**/dev/user/passkeys/options', async (route) => {
      const response = await route.fetch();
      const body = (await response.json()) as { data: { options: { rp: { id: string } } } };
      body.data.options.rp.id = 'accounts.example.com';
      await route.fulfill({ response, json: body });
    });
    await page.goto('/profile#security');
    await page.locator('#reauth_password').fill(me.password);
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await expect
      .poll(() => page.locator('#passkey-add .error[role="alert"]').textContent())
      .toBe(
        `Passkeys are not set up for this address (${new URL(page.url()).host}). Open the site at its usual address to use them.`,
      );
    expectNoProblems(problems);
  });
});
