import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { chromiumInstalled, lookAt, screenshot } from '../helpers/browser.js';
import { registerUser } from '../helpers/factories.js';
import { pngFixture } from '../helpers/images.js';
import { createdPost } from '../helpers/posts.js';
import { buildTestServices } from '../helpers/services.js';
import { enrolledStaff, signedInStaff, testClock } from '../helpers/staff.js';
import { useWebSuiteAtOwnOrigin } from '../helpers/web-suite.js';

const SUITE = 'console-users';
const LOADED = { timeout: 10_000 };

describe.skipIf(!chromiumInstalled)('the console in Chromium: users and their access records', () => {
  // The app's own origin, so the stored images' absolute addresses are the page's 'self' (its CSP allows them).
  const suite = useWebSuiteAtOwnOrigin('127.0.0.1');

  /** A browser profile signed in as a new member of `role` (enrolled and signed in over the admin API). */
  const openAs = async (role: string) => {
    // The app runs on real time: each member's codes from a clock that starts now (one step ahead at most).
    const clock = testClock();
    const member = await enrolledStaff(suite.ctx, clock, role);
    const session = await signedInStaff(suite.ctx, clock, member);
    const opened = await suite.openPage();
    await opened.page.goto('/console/login');
    const { origin } = new URL(opened.page.url());
    await opened.context.addCookies([
      {
        name: 'accounts_staff',
        value: session.cookie.split('=')[1] as string,
        url: `${origin}/admin`,
        httpOnly: true,
        sameSite: 'Strict',
      },
    ]);
    return { ...opened, member, session };
  };

  /** Answers the reason dialog from the keyboard. */
  const giveReason = async (page: Page, reason: string) => {
    await page.locator('#reason-dialog').waitFor({ state: 'visible', ...LOADED });
    await page.keyboard.type(reason);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
  };

  it('lets support find a user, show the email with a reason, and disable the account', async () => {
    const user = await registerUser(suite.ctx.app);
    const { page, problems, member } = await openAs('support');
    await page.goto('/console/users');
    await page.getByLabel('Search for').focus();
    await page.keyboard.type(user.email);
    await page.keyboard.press('Enter');
    const link = page.getByRole('link', { name: 'r***@example.com' });
    await link.waitFor(LOADED);
    await lookAt(page, SUITE, 'search');
    await link.focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(`**/console/users/${user.id}`, LOADED);
    await expect
      .poll(async () => page.locator('#profile').textContent(), LOADED)
      .toContain('r***@example.com');
    expect(await page.locator('#profile').textContent()).not.toContain(user.email);

    await page.getByRole('button', { name: 'Show: Email' }).focus();
    await page.keyboard.press('Enter');
    await giveReason(page, 'Ticket 4411: which address');
    await expect.poll(async () => page.locator('#profile').textContent(), LOADED).toContain(user.email);

    await page.getByRole('button', { name: 'End this session' }).focus();
    await page.keyboard.press('Enter');
    await giveReason(page, 'Lost phone');
    await expect.poll(async () => page.locator('#sessions li').count(), LOADED).toBe(0);

    // The rename form: the API's 422 beside the field in the page's words, then the change.
    const slug = page.getByLabel('Profile address', { exact: true });
    await slug.focus();
    await page.keyboard.type('a b');
    await page.keyboard.press('Enter');
    await giveReason(page, 'Ticket 4412: new address');
    await expect
      .poll(async () => page.locator('#slug-message').textContent(), LOADED)
      .toBe('A profile address needs at least 4 characters.');
    await slug.fill(`${user.slug}-new`);
    await page.keyboard.press('Enter');
    await giveReason(page, 'Ticket 4412: new address');
    await expect
      .poll(async () => page.locator('#profile').textContent(), LOADED)
      .toContain(`${user.slug}-new`);

    await page.getByRole('button', { name: 'Disable' }).focus();
    await page.keyboard.press('Enter');
    await giveReason(page, 'Reported as stolen');
    await expect.poll(async () => page.locator('#action-status').textContent(), LOADED).toBe('Done.');
    await lookAt(page, SUITE, 'user');
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, SUITE, 'user-dark');

    const { records } = await buildTestServices(suite.ctx).accessRecords.page({ subjectId: user.id }, 20);
    expect(records.reverse().map((r) => [r.actor, r.action, r.reason, r.outcome])).toEqual([
      [member.id, 'user.view', null, 'ok'],
      [member.id, 'user.unmask.email', 'Ticket 4411: which address', 'ok'],
      [member.id, 'user.revoke_session', 'Lost phone', 'ok'],
      [member.id, 'user.view', null, 'ok'],
      [member.id, 'user.rename', 'Ticket 4412: new address', 'ok'],
      [member.id, 'user.view', null, 'ok'],
      [member.id, 'user.disable', 'Reported as stolen', 'ok'],
      [member.id, 'user.view', null, 'ok'],
    ]);
    // The rename's 422 is an answer the page shows; Chromium logs it all the same.
    expect(
      problems.errors.filter((error) => !/status of 422 .*\/admin\/v1\/users\/.*\/rename/.test(error)),
    ).toEqual([]);
  }, 60_000);

  it('shows a viewer no actions and no "show", and the admin API refuses the viewer with 403', async () => {
    const user = await registerUser(suite.ctx.app);
    const { page, session } = await openAs('viewer');
    await page.goto(`/console/users/${user.id}?lang=ko`);
    await expect
      .poll(async () => page.locator('#profile').textContent(), LOADED)
      .toContain('r***@example.com');
    expect(await page.locator('#actions-card').isHidden()).toBe(true);
    expect(await page.getByRole('button', { name: /보기/ }).count()).toBe(0);
    await lookAt(page, SUITE, 'viewer-ko');
    const refused = await suite.ctx.app.inject({
      method: 'POST',
      url: `/admin/v1/users/${user.id}/disable`,
      headers: session,
      payload: { reason: 'trying' },
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({
      meta: {
        code: 403,
        error_type: 'AccessDeniedHttpException',
        error_message: 'This action is unauthorized.',
      },
      data: [],
    });
  });

  it('lets an admin filter the access records by subject and read the monthly review', async () => {
    const user = await registerUser(suite.ctx.app);
    const support = await openAs('support');
    await support.page.goto(`/console/users/${user.id}`);
    await expect.poll(async () => support.page.locator('#profile').textContent(), LOADED).toContain('r***');
    const { page, problems } = await openAs('admin');
    await page.goto('/console/audit');
    await page.getByLabel('User id').focus();
    await page.keyboard.type(user.id);
    await page.keyboard.press('Enter');
    const rows = page.locator('#records tbody tr');
    await expect.poll(async () => rows.count(), LOADED).toBe(1);
    expect(await rows.first().textContent()).toContain(`${support.member.id}127.0.0.1${user.id}user.view`);
    await page.getByRole('button', { name: 'Monthly review' }).focus();
    await page.keyboard.press('Enter');
    await expect
      .poll(
        async () =>
          (await page.locator('#findings li').count()) +
          Number(await page.locator('#findings-none').isVisible()),
        LOADED,
      )
      .toBeGreaterThan(0);
    await lookAt(page, SUITE, 'audit');
    await page.goto('/console/audit?lang=ko');
    expect(await page.locator('h1').textContent()).toBe('접속기록');
    await page.emulateMedia({ colorScheme: 'dark' });
    await lookAt(page, SUITE, 'audit-ko-dark');
    expect(problems.errors).toEqual([]);
  });

  it('lets content staff find an author’s post and hide it with a reason, from the keyboard', async () => {
    const author = await registerUser(suite.ctx.app);
    const written = await createdPost(suite.ctx.app, author.token, 'Buy followers at example.net');
    const { page, problems, member } = await openAs('content');
    await page.goto('/console/posts');
    await page.getByLabel('Search for').focus();
    await page.keyboard.type(author.username);
    await page.keyboard.press('Enter');
    const hide = page.getByRole('button', { name: 'Hide: Buy followers' });
    await hide.waitFor(LOADED);
    await lookAt(page, SUITE, 'posts');
    await hide.focus();
    await page.keyboard.press('Enter');
    await giveReason(page, 'Spam report 812');
    await expect
      .poll(async () => page.locator('#posts tbody').textContent(), LOADED)
      .toContain('Hidden: Spam report 812');
    expect(await page.getByRole('button', { name: 'Show again: Buy followers' }).count()).toBe(1);
    const { records } = await buildTestServices(suite.ctx).accessRecords.page({ actor: member.id }, 10);
    expect(records.reverse().map((r) => [r.subjectId, r.action, r.reason, r.detail])).toEqual([
      [author.id, 'posts.view', null, { posts: 1 }],
      [author.id, 'post.hide', 'Spam report 812', { post_id: written.id }],
    ]);
    expect(problems.errors).toEqual([]);
  });

  it('lets content staff add a banner and an inspirer from the bar; a viewer sees them without the forms', async () => {
    const user = await registerUser(suite.ctx.app);
    const { page, problems, member } = await openAs('content');
    await page.goto('/console');
    // The bar's content entries appear once GET /me has said the role may read content.
    const follow = async (name: string) => {
      const link = page.getByRole('link', { name, exact: true });
      await link.waitFor(LOADED);
      await link.focus();
      await page.keyboard.press('Enter');
      await page.waitForURL(`**/console/${name.toLowerCase()}`, LOADED);
    };
    await follow('Banners');
    await page.getByLabel('Title').focus();
    await page.keyboard.type('Spring festival');
    const image = { name: 'spring.png', mimeType: 'image/png', buffer: await pngFixture(240, 80) };
    await page.getByLabel('Image (JPEG, PNG or GIF)').setInputFiles(image);
    await page.locator('#link_url').focus();
    await page.keyboard.type('https://example.com/spring');
    await page.keyboard.press('Enter');
    await expect
      .poll(async () => page.locator('#form-status').textContent(), LOADED)
      .toBe('The banner was added.');
    await expect
      .poll(async () => page.locator('#banners tbody').textContent(), LOADED)
      .toContain('Spring festival0Shown now');
    // The stored image is served and allowed by the page's policy (a blocked one is a problem below).
    const shown = `document.querySelector('#banners img[alt="Spring festival"]')?.naturalWidth`;
    await expect.poll(async () => page.evaluate(shown), LOADED).toBeGreaterThan(0);
    await lookAt(page, SUITE, 'banners');

    await follow('Inspirers');
    await page.getByLabel('User', { exact: true }).focus();
    await page.keyboard.type(user.username);
    await page.keyboard.press('Enter');
    await expect
      .poll(async () => page.locator('#form-status').textContent(), LOADED)
      .toBe('The user is now an inspirer.');
    const listed = page.locator('#inspirers tbody');
    await expect.poll(async () => listed.textContent(), LOADED).toContain(`${user.username}r***@example.com`);
    expect(await listed.textContent()).not.toContain(user.email);
    await lookAt(page, SUITE, 'inspirers');
    const { records } = await buildTestServices(suite.ctx).accessRecords.page({ actor: member.id }, 10);
    expect(records.reverse().map((r) => [r.subjectId, r.action, r.detail])).toEqual([
      [null, 'banner.create', { banner_id: expect.any(String) }],
      [null, 'inspirers.view', { rows: 0 }],
      [user.id, 'user.inspirer.add', {}],
      [null, 'inspirers.view', { rows: 1 }],
    ]);
    expect(problems.errors).toEqual([]);

    const viewer = await openAs('viewer');
    await viewer.page.goto('/console/banners');
    await expect
      .poll(async () => viewer.page.locator('#banners tbody').textContent(), LOADED)
      .toContain('Spring festival');
    expect(await viewer.page.locator('#banner-add').isHidden()).toBe(true);
    expect(await viewer.page.getByRole('button', { name: 'Change the banner' }).count()).toBe(0);
    await viewer.page.goto('/console/inspirers');
    await expect
      .poll(async () => viewer.page.locator('#inspirers tbody').textContent(), LOADED)
      .toContain(user.username);
    expect(await viewer.page.locator('#inspirer-add').isHidden()).toBe(true);
    expect(await viewer.page.getByRole('button', { name: 'Remove' }).count()).toBe(0);
    expect(viewer.problems.errors).toEqual([]);
  });
});
