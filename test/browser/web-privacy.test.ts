import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.js';
import { CHROMIUM_MISSING, chromiumInstalled, expectNoProblems, lookAt } from '../helpers/browser.js';
import { download } from '../helpers/data-export.js';
import { bearer, registerUser } from '../helpers/factories.js';
import { expectError, expectOk, postForm, UNAUTHENTICATED } from '../helpers/http.js';
import { latestToken } from '../helpers/mail.js';
import { useWebSuite } from '../helpers/web-suite.js';

const SUITE = 'web-privacy';

/** A page's first answers come after its modules load and its calls return: slow on a busy machine. */
const LOADED = { timeout: 10_000 };

describe.runIf(!chromiumInstalled && process.env.CI === 'true')('web privacy in Chromium (CI)', () => {
  it('needs Chromium in CI', () => {
    throw new Error(CHROMIUM_MISSING);
  });
});

describe.skipIf(!chromiumInstalled)('web pages in Chromium: activity, data download, deletion', () => {
  const suite = useWebSuite();

  it('lists the activity newest first and shows more through the next cursor', async () => {
    const me = await registerUser(suite.ctx.app);
    // Eleven consent changes after the account's creation: twelve events, more than the card's page of ten.
    for (let change = 0; change < 11; change += 1) {
      const value = change % 2 === 0 ? 'on' : 'off';
      expectOk(
        await postForm(
          suite.ctx.app,
          '/dev/user/consents/update',
          { marketing_sms: value },
          bearer(me.token),
        ),
      );
    }
    const { page, problems } = await suite.openSignedIn(me.token);
    await page.goto('/profile#activity');
    const items = page.locator('#activity li');
    await expect.poll(() => items.count(), LOADED).toBe(10);
    expect(await items.locator('.device').first().textContent()).toBe('Consents changed');
    expect(await items.locator('.meta').first().textContent()).toMatch(/^.+ · 127\.0\.0\.1 · .+/);
    const more = page.getByRole('button', { name: 'Show more' });
    expect(await more.isVisible()).toBe(true);
    await lookAt(page, SUITE, 'profile-activity');

    await more.click();
    await expect.poll(() => items.count()).toBe(12);
    expect(await items.locator('.device').last().textContent()).toBe('Account created');
    expect(await more.isVisible()).toBe(false);
    // Newest first across both pages: each event's time is not later than the one above it.
    const ids = await suite.ctx.app.inject({
      method: 'GET',
      url: '/dev/user/activity?limit=100',
      headers: bearer(me.token),
    });
    const events = expectOk<{ events: Array<{ type: string }> }>(ids).events;
    expect(await items.locator('.device').allTextContents()).toEqual(
      events.map((event) => (event.type === 'account_created' ? 'Account created' : 'Consents changed')),
    );
    expectNoProblems(problems);
  });

  it('prepares the data download with the current password and shows its link when ready', async () => {
    const me = await registerUser(suite.ctx.app);
    const { page, problems } = await suite.openSignedIn(me.token);
    await page.goto('/profile#data');
    await expect.poll(() => page.locator('#email').inputValue(), LOADED).toBe(me.email);
    const password = page.locator('#reauth_password');
    const button = page.getByRole('button', { name: 'Prepare my data' });

    await password.fill('not my password');
    await button.click();
    const message = page.locator('#reauth_password-message');
    await expect.poll(() => message.textContent()).toBe('The password is wrong.');
    // Beside the button pressed, too: the result sits next to its own button.
    expect(await page.locator('#data-export .error[role="alert"]').textContent()).toBe(
      'The password is wrong.',
    );
    await password.press('End');
    await password.press('Backspace');
    expect(await message.textContent()).toBe('');

    await password.fill(me.password);
    const started = page.waitForResponse(
      (response) => response.url().endsWith('/user/export') && response.request().method() === 'POST',
    );
    await button.click();
    expect((await started).status()).toBe(202);
    const status = page.locator('#data-export .status');
    await expect.poll(() => status.textContent()).toMatch(/^(Preparing your data…|Your data is ready\.)$/);
    // The request is an event: the Activity card shows it on top.
    await expect
      .poll(() => page.locator('#activity .device').first().textContent())
      .toBe('Data download requested');
    await suite.ctx.dataExports.idle();
    // The card asks for the status every few seconds while the page is open.
    const link = page.getByRole('link', { name: 'Download the zip' });
    await expect.poll(() => link.isVisible(), { timeout: 15_000 }).toBe(true);
    expect(await status.textContent()).toBe('Your data is ready.');
    expect(await page.locator('#export-expires').textContent()).toMatch(/^The link works until .+\.$/);
    const href = (await link.getAttribute('href')) ?? '';
    expect(href).toMatch(/\/export\/download\/[^?]+\?token=/);
    const zip = await download(suite.ctx, href);
    expect(zip.statusCode).toBe(200);
    expect(zip.headers['content-type']).toBe('application/zip');
    await lookAt(page, SUITE, 'profile-export-ready');

    // A reload keeps it: the card loads the latest export and shows the same link.
    await page.reload();
    await expect.poll(() => link.isVisible(), LOADED).toBe(true);
    expect(await status.textContent()).toBe('Your data is ready.');
    expect(await link.getAttribute('href')).toBe(href);
    // Past its time the next load shows no link, says so, and the form prepares a new one.
    await suite.ctx.database.handle.db
      .updateTable('data_exports')
      .set({ expires_at: sql<Date>`now() - interval '1 minute'` })
      .where('user_id', '=', me.id)
      .execute();
    await page.reload();
    await expect
      .poll(() => status.textContent(), LOADED)
      .toBe('This download has expired. Prepare a new one.');
    expect(await link.isVisible()).toBe(false);
    expect(await page.locator('#data-export .error[role="alert"]').textContent()).toBe('');
    expect(await button.isVisible()).toBe(true);
    expectNoProblems(problems);
  });

  it('follows a pending export again after a reload, until its link is there', async () => {
    const me = await registerUser(suite.ctx.app);
    const db = suite.ctx.database.handle.db;
    const id = newId();
    // Held by a builder for the next hour (as another instance would): it stays pending until the test says.
    await db
      .insertInto('data_exports')
      .values({ id, user_id: me.id, locale: 'en', next_attempt_at: sql<Date>`now() + interval '1 hour'` })
      .execute();
    const { page, problems } = await suite.openSignedIn(me.token);
    await page.goto('/profile#data');
    const status = page.locator('#data-export .status');
    await expect.poll(() => status.textContent(), LOADED).toBe('Preparing your data…');
    await page.reload();
    await expect.poll(() => status.textContent(), LOADED).toBe('Preparing your data…');
    const link = page.getByRole('link', { name: 'Download the zip' });
    expect(await link.isVisible()).toBe(false);

    await db
      .updateTable('data_exports')
      .set({ next_attempt_at: sql<Date>`now()` })
      .where('id', '=', id)
      .execute();
    suite.ctx.dataExports.kick();
    await suite.ctx.dataExports.idle();
    // The card asks for the status every few seconds while the page is open.
    await expect.poll(() => link.isVisible(), { timeout: 15_000 }).toBe(true);
    expect(await status.textContent()).toBe('Your data is ready.');
    expect(await link.getAttribute('href')).toContain(`/export/download/${id}?token=`);
    expectNoProblems(problems);
  });

  it('states the grace period, schedules the deletion with the password and signs the page out', async () => {
    const me = await registerUser(suite.ctx.app);
    const { page, problems, context } = await suite.openSignedIn(me.token);
    await page.goto('/profile#data');
    await expect.poll(() => page.locator('#email').inputValue(), LOADED).toBe(me.email);
    const card = page.locator('section[aria-labelledby="delete-heading"]');
    expect(await card.textContent()).toContain(
      'Your account is erased 14 days after you ask. Until then nobody can find your profile or posts, and logging in is refused.',
    );
    expect(await card.textContent()).toContain(
      'enter your email and password on the “Keep your account” page.',
    );

    // The phrase first: a stray click deletes nothing.
    const deleteButton = page.getByRole('button', { name: 'Delete my account' });
    await page.locator('#reauth_password').fill('not my password');
    await deleteButton.click();
    await expect
      .poll(() => page.locator('#delete_confirm-message').textContent())
      .toBe('Type “delete my account” exactly to delete the account.');
    await page.getByLabel('To confirm, type “delete my account”').fill('Delete my account ');
    await deleteButton.click();
    await expect
      .poll(() => page.locator('#reauth_password-message').textContent())
      .toBe('The password is wrong.');

    await page.locator('#reauth_password').fill(me.password);
    await deleteButton.click();
    // The profile is left for a page that says what happens next and how to take it back.
    await page.waitForURL('**/account-deleted?on=*');
    await expect
      .poll(() => page.locator('#deletion-date').textContent())
      .toMatch(/^Your account will be erased on .+\.$/);
    expect(await page.locator('main').textContent()).toContain('logging in is refused');
    await lookAt(page, SUITE, 'account-deleted');

    // Every session ended, this page's cookie included; signing in is the 409 until the date.
    expect((await context.cookies()).find((cookie) => cookie.name === 'accounts_session')).toBeUndefined();
    const get = await suite.ctx.app.inject({
      method: 'GET',
      url: '/dev/user/get',
      headers: bearer(me.token),
    });
    expectError(get, 401, ...UNAUTHENTICATED);
    const login = await postForm(suite.ctx.app, '/dev/auth/login/email', {
      email: me.email,
      password: me.password,
    });
    const { deletion_due_at: due } = await suite.ctx.database.handle.db
      .selectFrom('users')
      .select('deletion_due_at')
      .where('id', '=', me.id)
      .executeTakeFirstOrThrow();
    expectError(login, 409, 'ConflictHttpException', 'This account is scheduled for deletion.', {
      status: 'deletion_scheduled',
      scheduled_for: due?.toISOString(),
    });

    // Where to take it back: the page's link, then the account's email and password (no mailed token).
    await page.getByRole('link', { name: 'keep your account with your email and password' }).click();
    await page.waitForURL('**/cancel-deletion');
    await page.getByLabel('Email').fill(me.email);
    await page.getByLabel('Password').fill('not my password');
    await page.getByRole('button', { name: 'Keep my account' }).click();
    const error = page.locator('#form-error');
    await expect.poll(() => error.textContent()).not.toBe('');
    await page.getByLabel('Password').fill(me.password);
    await page.getByRole('button', { name: 'Keep my account' }).click();
    await expect.poll(() => page.locator('#form-status').textContent()).toMatch(/^Your account is kept/);
    expect(await error.textContent()).toBe('');
    await lookAt(page, SUITE, 'cancel-deletion-by-password');
    const again = await postForm(suite.ctx.app, '/dev/auth/login/email', {
      email: me.email,
      password: me.password,
    });
    expect(expectOk<{ user: { id: string } }>(again).user.id).toBe(me.id);
    expectNoProblems(problems);
  });

  it('keeps the account with the mailed link in Korean: one button, no password asked', async () => {
    const me = await registerUser(suite.ctx.app);
    const scheduled = await postForm(
      suite.ctx.app,
      '/dev/user/delete',
      { current_password: me.password },
      bearer(me.token),
    );
    expect(expectOk<{ deleted: boolean }>(scheduled).deleted).toBe(false);
    const token = await latestToken(suite.ctx.database.handle, me.email, 'deletion_scheduled');
    const { page, problems } = await suite.openPage({ locale: 'ko-KR' });
    await page.goto(`/cancel-deletion?token=${token}`);
    expect(await page.locator('#cancel-credentials').isVisible()).toBe(false);
    await page.getByRole('button', { name: '계정 유지하기' }).click();
    await expect.poll(() => page.locator('#form-status').textContent()).toMatch(/^계정이 유지되며/);
    expect(await page.getByRole('button', { name: '계정 유지하기' }).isVisible()).toBe(false);
    const login = await postForm(suite.ctx.app, '/dev/auth/login/email', {
      email: me.email,
      password: me.password,
    });
    expect(expectOk<{ user: { id: string } }>(login).user.id).toBe(me.id);
    expectNoProblems(problems);
  });
});
