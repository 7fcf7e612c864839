import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeTestApp, createTestApp, type TestApp } from '../helpers/app.js';
import {
  baseUrl,
  CHROMIUM_MISSING,
  chromiumInstalled,
  expectNoProblems,
  launchChromium,
  screenshot,
  watchProblems,
} from '../helpers/browser.js';

describe.runIf(!chromiumInstalled && process.env.CI === 'true')('API docs in Chromium (CI)', () => {
  it('needs Chromium in CI', () => {
    throw new Error(CHROMIUM_MISSING);
  });
});

describe.skipIf(!chromiumInstalled)('API docs at /docs in Chromium', () => {
  let ctx: TestApp;
  let browser: Browser;

  beforeAll(async () => {
    ctx = await createTestApp('pglite');
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    if (ctx) await closeTestApp(ctx);
  });

  it('renders /openapi.json with Swagger UI, every operation listed, without a console error or CSP violation', async () => {
    const document = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, unknown>>;
    };
    const expected = Object.entries(document.paths)
      .flatMap(([path, operations]) =>
        Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
      )
      .sort();
    expect(expected.length).toBeGreaterThan(20);

    const page = await browser.newPage({ baseURL: baseUrl(ctx.app.server.address()) });
    const problems = await watchProblems(page);
    await page.goto('/docs');
    const operations = page.locator('.opblock');
    await expect.poll(() => operations.count(), { timeout: 20_000 }).toBe(expected.length);
    const listed = await operations.evaluateAll((blocks) =>
      blocks.map((block) => {
        const method = block.querySelector('.opblock-summary-method')?.textContent ?? '';
        const path = block.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? '';
        return `${method.toUpperCase()} ${path}`;
      }),
    );
    expect(listed.sort()).toEqual(expected);
    await screenshot(page, 'api-docs', '01-docs');

    // One operation opened: its parameters and responses render from the document.
    await operations.first().locator('.opblock-summary').click();
    await expect.poll(() => page.locator('.opblock.is-open .responses-table').count()).toBeGreaterThan(0);
    await screenshot(page, 'api-docs', '02-operation-open');
    // A way back to the site, above Swagger UI.
    await page.getByRole('link', { name: '← Back to the site' }).click();
    await page.waitForURL((url) => url.pathname === '/');
    expectNoProblems(problems);
    await page.close();
    // Swagger UI renders every operation on the page's thread: ~10 s alone here, past the default 30 s when
    // three browser files share the two cores, so the test gets the render's own 20 s poll plus its steps.
  }, 60_000);
});
