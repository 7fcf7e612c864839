import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CHROMIUM_MISSING,
  chromiumInstalled,
  expectNoProblems,
  holdRequests,
  screenshot,
} from '../helpers/browser.js';
import { registerUser, unique } from '../helpers/factories.js';
import { postForm } from '../helpers/http.js';
import { recipients, startTestSmtp, type TestSmtp, tokenFromText } from '../helpers/mail.js';
import { useWebSuite } from '../helpers/web-suite.js';

const SUITE = 'web-account';
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';

describe.runIf(!chromiumInstalled && process.env.CI === 'true')('web account pages in Chromium (CI)', () => {
  it('needs Chromium in CI', () => {
    throw new Error(CHROMIUM_MISSING);
  });
});

describe.skipIf(!chromiumInstalled)('web pages in Chromium: forgotten password, email change, names', () => {
  let smtp: TestSmtp;
  beforeAll(async () => {
    smtp = await startTestSmtp();
  });
  afterAll(async () => {
    await smtp?.close();
  });
  // Declared after the mailbox's beforeAll, so the app starts with its address.
  const suite = useWebSuite(() => ({ MAIL_TRANSPORT: 'smtp', SMTP_URL: smtp.url, SMTP_TIMEOUT: '10s' }));

  it('asks for a reset link from /login and says the same whether or not the account exists', async () => {
    const me = await registerUser(suite.ctx.app);
    const { page, problems } = await suite.openPage();
    await page.goto('/login');
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.waitForURL('**/forgot-password');

    // A malformed address is about the input: the API's 422 under the field, cleared by the next keystroke.
    await page.getByLabel('Email').fill('not-an-address');
    await page.getByRole('button', { name: 'Send the link' }).click();
    const emailMessage = page.locator('#email-message');
    await expect
      .poll(() => emailMessage.textContent())
      .toBe('Enter a whole email address, such as name@example.com.');
    await expect.poll(() => page.locator('#email').getAttribute('aria-invalid')).toBe('true');
    await screenshot(page, SUITE, '01-forgot-malformed');
    await page.getByLabel('Email').pressSequentially('x');
    expect(await emailMessage.textContent()).toBe('');
    expect(await page.locator('#email').getAttribute('aria-invalid')).toBeNull();

    const status = page.locator('#form-status');
    await page.getByLabel('Email').fill(me.email);
    await page.getByRole('button', { name: 'Send the link' }).click();
    await expect.poll(() => status.textContent()).toMatch(/^If an account uses this address/);
    const neutral = await status.textContent();
    await screenshot(page, SUITE, '02-forgot-sent');
    // The link arrives in the mailbox (the sign-up's verification mail came before it).
    const resetMails = (address: string) =>
      smtp.mails.filter(
        (mail) => recipients(mail).includes(address) && mail.text?.includes('/reset-password?'),
      );
    await expect.poll(() => resetMails(me.email).length).toBe(1);
    expect(tokenFromText(resetMails(me.email)[0]?.text)).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const nobody = `nobody-${unique()}@example.com`;
    await page.getByLabel('Email').fill(nobody);
    const answered = page.waitForResponse((response) => response.url().endsWith('/auth/password/forgot'));
    await page.getByRole('button', { name: 'Send the link' }).click();
    expect((await answered).status()).toBe(200);
    await expect.poll(() => status.textContent()).toBe(neutral);
    await suite.ctx.mailer.idle();
    expect(resetMails(nobody)).toEqual([]);
    expectNoProblems(problems);
  });

  it('changes the email on /profile only with the current password, and says where the mail went', async () => {
    const me = await registerUser(suite.ctx.app);
    const other = await registerUser(suite.ctx.app);
    const { page, problems } = await suite.openSignedIn(me.token);
    await page.goto('/profile');
    await expect.poll(() => page.locator('#email').inputValue()).toBe(me.email);
    const reauth = page.locator('#reauth-panel');
    expect(await reauth.isVisible()).toBe(false);

    // Someone else's address is taken as you type; a free one is not, and now the password is asked for.
    await page.getByLabel('Email', { exact: true }).fill(other.email);
    await expect
      .poll(() => page.locator('#email-message').textContent())
      .toBe('An account already uses this email. Log in, or use another address.');
    const newEmail = `moved-${unique()}@example.com`;
    await page.getByLabel('Email', { exact: true }).fill(newEmail);
    await expect.poll(() => page.locator('#email-message').textContent()).toBe('Available.');
    expect(await reauth.isVisible()).toBe(true);

    // Nothing typed in the confirmation panel: the save says what it needs beside its button.
    await page.getByRole('button', { name: 'Save profile' }).click();
    await expect
      .poll(() => page.locator('#form-error').textContent())
      .toBe('First confirm it is you, with your password or a passkey.');
    await page.getByLabel('Your current password').fill('not-my-password');
    await page.getByRole('button', { name: 'Save profile' }).click();
    const passwordMessage = page.locator('#reauth_password-message');
    await expect.poll(() => passwordMessage.textContent()).toBe('The password is wrong.');
    await expect.poll(() => page.locator('#reauth_password').getAttribute('aria-invalid')).toBe('true');
    await screenshot(page, SUITE, '03-email-change-wrong-password');
    // The error was about the old value: it goes with the first keystroke.
    await page.getByLabel('Your current password').press('Backspace');
    expect(await passwordMessage.textContent()).toBe('');

    await page.getByLabel('Your current password').fill(me.password);
    await page.getByRole('button', { name: 'Save profile' }).click();
    await expect
      .poll(() => page.locator('#form-status').textContent())
      .toBe(`Saved. We sent a verification link to ${newEmail}: open it to confirm the new address.`);
    expect(await reauth.isVisible()).toBe(false);
    await screenshot(page, SUITE, '04-email-changed');
    const mail = await smtp.mailTo(newEmail);
    expect(mail.text).toContain('/verify-email?token=');
    await page.reload();
    await expect.poll(() => page.locator('#email').inputValue()).toBe(newEmail);

    // A link that no longer works offers a new one, mailed to the signed-in account's address.
    await page.goto('/verify-email?token=no-longer-valid');
    await page.getByRole('button', { name: 'Verify my email' }).click();
    await page.getByRole('button', { name: 'Send a new link' }).click();
    await expect
      .poll(() => page.locator('#resend .status').textContent())
      .toBe('A new link is on its way. Check your inbox and spam folder.');
    await expect.poll(() => smtp.mails.filter((sent) => recipients(sent).includes(newEmail)).length).toBe(2);
    await screenshot(page, SUITE, '04b-verify-new-link-sent');
    expectNoProblems(problems);
  });

  it('sends a login made before the page’s script ran back to /login, never putting it in the URL', async () => {
    const me = await registerUser(suite.ctx.app);
    const { page, problems } = await suite.openPage();
    const script = await holdRequests(page, '**/assets/pages/login.js');
    const sent: string[] = [];
    page.on('request', (request) => sent.push(`${request.method()} ${request.url()}`));
    await page.goto('/login', { waitUntil: 'commit' });
    await page.getByLabel('Email').fill(me.email);
    await page.getByLabel('Password').fill(me.password);
    await page.getByRole('button', { name: 'Log in', exact: true }).click();
    // The browser's own submission: a POST, answered with the page again (a GET, after the 303).
    await expect.poll(() => sent.filter((line) => line.endsWith('/login')).length).toBe(3);
    expect(sent.filter((line) => line.endsWith('/login')).map((line) => line.split(' ')[0])).toEqual([
      'GET',
      'POST',
      'GET',
    ]);
    const loaded = page.waitForEvent('load');
    script.release();
    await loaded;
    expect(page.url()).toMatch(/\/login$/);
    expect(sent.filter((line) => line.includes(encodeURIComponent(me.email)))).toEqual([]);
    await page.getByLabel('Email').fill(me.email);
    await page.getByLabel('Password').fill(me.password);
    await page.getByRole('button', { name: 'Log in', exact: true }).click();
    await page.waitForURL('**/profile');
    expectNoProblems(problems);
  });

  it('keeps /profile’s fields disabled until the account has loaded into them', async () => {
    const me = await registerUser(suite.ctx.app);
    const { page, problems } = await suite.openSignedIn(me.token);
    const account = await holdRequests(page, '**/user/get');
    await page.goto('/profile');
    // What someone typed now would be overwritten by the loaded values, and a save would send empty ones.
    for (const id of ['email', 'username', 'slug', 'bio']) {
      expect(await page.locator(`#${id}`).isDisabled()).toBe(true);
    }
    expect(await page.getByRole('button', { name: 'Save profile' }).isDisabled()).toBe(true);
    account.release();
    await account.handled();
    await expect.poll(() => page.locator('#bio').isEditable()).toBe(true);
    expect(await page.locator('#username').inputValue()).toBe(me.username);
    await page.getByLabel('About you').fill('typed once it loaded');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await expect.poll(() => page.locator('#form-status').textContent()).toBe('Saved.');
    await page.reload();
    await expect.poll(() => page.locator('#bio').inputValue()).toBe('typed once it loaded');
    expectNoProblems(problems);
  });

  it('checks names as you type on /profile, never calling the user’s own values taken', async () => {
    const me = await registerUser(suite.ctx.app);
    const other = await registerUser(suite.ctx.app);
    const { page, problems } = await suite.openSignedIn(me.token);
    const asked: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/validate/')) asked.push(`${request.url()} ${request.postData()}`);
    });
    await page.goto('/profile');
    await expect.poll(() => page.locator('#username').inputValue()).toBe(me.username);

    const username = page.getByLabel('Username');
    await username.fill(other.username);
    await expect
      .poll(() => page.locator('#username-message').textContent())
      .toBe('This username is taken. Choose another.');
    await expect.poll(() => page.locator('#username').getAttribute('aria-invalid')).toBe('true');
    // Back to the own name, re-cased: nothing is asked and nothing is shown.
    await username.fill(me.username.toUpperCase());
    await page.getByLabel('Profile address').fill(me.slug);
    await page.getByLabel('About you').fill('waiting past the pause');
    await expect.poll(() => page.locator('#username-message').textContent()).toBe('');
    expect(await page.locator('#username').getAttribute('aria-invalid')).toBeNull();
    expect(await page.locator('#slug-message').textContent()).toBe('');
    const slug = page.getByLabel('Profile address');
    await slug.fill(`free-${unique()}`);
    await expect.poll(() => page.locator('#slug-message').textContent()).toBe('Available.');
    expect(asked.filter((entry) => entry.includes(me.username) || entry.includes(`"${me.slug}"`))).toEqual(
      [],
    );
    await screenshot(page, SUITE, '05-profile-availability');

    // Saved while its check is on its way: the check's late answer ("taken": by the user now) never shows.
    const check = await holdRequests(page, '**/validate/slug');
    await slug.fill(`mine-${unique()}`);
    await expect.poll(() => page.locator('#slug-message').textContent()).toBe('Checking…');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await expect.poll(() => page.locator('#form-status').textContent()).toBe('Saved.');
    check.release();
    await check.handled();
    expect(await page.locator('#slug-message').textContent()).toBe('');
    expect(await page.locator('#slug').getAttribute('aria-invalid')).toBeNull();
    expectNoProblems(problems);
  });

  it('names each session’s device (parsed by the server), never showing the raw user agent', async () => {
    const me = await registerUser(suite.ctx.app);
    await postForm(
      suite.ctx.app,
      '/v1/auth/login/email',
      { email: me.email, password: me.password },
      { 'user-agent': IPHONE },
    );
    const { page, problems } = await suite.openPage();
    await page.goto('/login');
    await page.getByLabel('Email').fill(me.email);
    await page.getByLabel('Password').fill(me.password);
    await page.getByRole('button', { name: 'Log in', exact: true }).click();
    await page.waitForURL('**/profile');
    await page.getByRole('link', { name: 'Activity and devices' }).click();
    const devices = page.locator('#sessions .device');
    await expect.poll(() => devices.count()).toBe(3);
    const names = await devices.allTextContents();
    // Newest first: this Chromium, the iPhone, the registration (a test client bowser does not know).
    expect(names[0]).toMatch(/^Chrome \d+ on Linux$/);
    expect(names.slice(1)).toEqual(['Safari 17 on iPhone (iOS 17.4)', 'unknown device']);
    expect(await page.locator('#sessions').textContent()).not.toContain('Mozilla/5.0');
    await screenshot(page, SUITE, '06-sessions-device-names');
    expectNoProblems(problems);
  });
});
