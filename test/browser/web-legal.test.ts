import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  CHROMIUM_MISSING,
  chromiumInstalled,
  expectNoProblems,
  lookAt,
  watchProblems,
} from '../helpers/browser.js';
import { useWebSuite } from '../helpers/web-suite.js';

const SUITE = 'web-legal';

/** The sign-up's list comes after its module loads and consents/documents answers: slow on a busy machine. */
const LOADED = { timeout: 10_000 };

describe.runIf(!chromiumInstalled && process.env.CI === 'true')('web legal pages in Chromium (CI)', () => {
  it('needs Chromium in CI', () => {
    throw new Error(CHROMIUM_MISSING);
  });
});

describe.skipIf(!chromiumInstalled)('web pages in Chromium: the consent documents open from /signup', () => {
  const suite = useWebSuite();

  /** Every document link of the sign-up form, as a reader clicks it: a new tab with the document's page. */
  async function openEachDocument(page: Page, lang: string, step: string): Promise<string[]> {
    const links = page.locator('#required-documents a, #optional-consents a.document-link');
    await expect.poll(() => links.count(), LOADED).toBe(6);
    const titles: string[] = [];
    for (let i = 0; i < 6; i++) {
      const link = links.nth(i);
      const href = (await link.getAttribute('href')) ?? '';
      expect(href).toMatch(new RegExp(`^/legal/[a-z_]+/1/${lang}$`));
      const [tab] = await Promise.all([page.context().waitForEvent('page'), link.click()]);
      // Watched from its next load on: the tab's first one may run ahead of the listeners.
      const problems = await watchProblems(tab);
      await tab.reload();
      expect(new URL(tab.url()).pathname).toBe(href);
      const heading = (await tab.locator('h1').textContent()) ?? '';
      expect(heading).not.toBe('');
      titles.push(heading);
      expect(await tab.locator('html').getAttribute('lang')).toBe(lang);
      expect(await tab.locator('article.document h2').count()).toBeGreaterThan(0);
      expect(((await tab.locator('article.document').textContent()) ?? '').length).toBeGreaterThan(200);
      if (i === 0) await lookAt(tab, SUITE, `${step}-document`);
      expectNoProblems(problems);
      await tab.close();
    }
    return titles;
  }

  it('opens the page of every document the English sign-up links to', async () => {
    const { page, problems } = await suite.openPage();
    await page.goto('/signup');
    const titles = await openEachDocument(page, 'en', 'en');
    expect(titles.slice(0, 2)).toEqual(['Collection and use of personal information', 'Terms of Service']);
    expectNoProblems(problems);
  });

  it('opens the Korean pages from the Korean sign-up, and switches a page to English', async () => {
    const { page, problems } = await suite.openPage({ locale: 'ko-KR' });
    await page.goto('/signup');
    const titles = await openEachDocument(page, 'ko', 'ko');
    expect(titles).toContain('야간(21시~08시) 광고성 푸시 수신 동의');
    await page.goto('/legal/privacy');
    expect(new URL(page.url()).pathname).toBe('/legal/privacy/1/ko');
    await page.getByRole('link', { name: 'English' }).click();
    await page.waitForURL('**/legal/privacy/1/en');
    expect(await page.locator('h1').textContent()).toBe('Collection and use of personal information');
    expectNoProblems(problems);
  });
});
