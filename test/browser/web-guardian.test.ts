import { describe, expect, it } from 'vitest';
import { CHROMIUM_MISSING, chromiumInstalled, expectNoProblems, screenshot } from '../helpers/browser.js';
import { unique } from '../helpers/factories.js';
import { bornYearsAgo } from '../helpers/guardian.js';
import { latestToken } from '../helpers/mail.js';
import { useWebSuite } from '../helpers/web-suite.js';

const SUITE = 'web-guardian';

describe.runIf(!chromiumInstalled && process.env.CI === 'true')('web guardian pages in Chromium (CI)', () => {
  it('needs Chromium in CI', () => {
    throw new Error(CHROMIUM_MISSING);
  });
});

/**
 * AGE_GATE=birth_date: /signup asks the date of birth, and a child under 14 names a guardian right after
 * signing up; the guardian's page (Korean first) shows what the child agreed to and records the answer.
 */
describe.skipIf(!chromiumInstalled)(
  'web pages in Chromium: a child’s sign-up and the guardian’s page',
  () => {
    const suite = useWebSuite(() => ({ AGE_GATE: 'birth_date' }));

    it('signs a child up, asks the guardian, and the guardian consents in Korean', async () => {
      const username = `kid${unique()}`;
      const guardian = `parent${unique()}@example.com`;
      const { page, problems } = await suite.openPage();
      await page.goto('/signup');
      await page.getByLabel('Email', { exact: true }).fill(`${username}@example.com`);
      await page.getByLabel('Username').fill(username);
      await page.getByLabel('Female').check();
      await page.getByLabel('Date of birth').fill(bornYearsAgo(10));
      await page.getByLabel('Password', { exact: true }).fill(`Quiet-Harbour-${unique()}`);
      await page.getByLabel('I agree to the required terms').check();
      await screenshot(page, SUITE, '01-signup-with-birth-date');
      await page.getByRole('button', { name: 'Create account' }).click();

      const step = page.locator('#guardian-step');
      await expect.poll(() => step.isVisible()).toBe(true);
      await screenshot(page, SUITE, '02-guardian-step');
      await page.getByLabel('Parent or guardian’s email').fill(guardian);
      await page.getByRole('button', { name: 'Ask my guardian' }).click();
      await expect
        .poll(() => step.locator('.status').textContent())
        .toBe('Sent. When your guardian agrees, you can use everything.');
      expectNoProblems(problems);

      const token = await latestToken(suite.ctx.database.handle, guardian, 'guardian_consent_request');
      const parent = await suite.openPage({ locale: 'ko-KR' });
      await parent.page.goto(`/guardian-consent?token=${token}`);
      await expect.poll(() => parent.page.locator('h1').textContent()).toBe('법정대리인 동의');
      await expect.poll(() => parent.page.locator('#guardian-lead').textContent()).toContain(username);
      await expect.poll(() => parent.page.locator('#guardian-documents li').count()).toBeGreaterThan(0);
      await screenshot(parent.page, SUITE, '03-guardian-page-korean');
      await parent.page.getByRole('button', { name: '동의합니다' }).click();
      await expect.poll(() => parent.page.locator('#form-status').textContent()).toMatch(/^감사합니다/);
      await screenshot(parent.page, SUITE, '04-guardian-consented');
      const row = await suite.ctx.database.handle.db
        .selectFrom('users')
        .select('guardian_consent')
        .where('username', '=', username)
        .executeTakeFirstOrThrow();
      expect(row.guardian_consent).toBe('granted');
      // The link is used: opened again, the page says so and offers nothing to press.
      await parent.page.reload();
      await expect.poll(() => parent.page.locator('#token-message').textContent()).not.toBe('');
      expect(await parent.page.getByRole('button', { name: '동의합니다' }).isVisible()).toBe(false);
      expectNoProblems(parent.problems);
    });
  },
);
