import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { closeTestApp, createTestApp, type TestApp } from './app.js';
import { baseUrl, freePort, launchChromium, type PageProblems, watchProblems } from './browser.js';

export interface OpenedPage {
  page: Page;
  problems: PageProblems;
  context: BrowserContext;
}

export interface WebSuite {
  /** Set once beforeAll has run. */
  ctx: TestApp;
  /** A fresh browser profile (its own cookies), as another device would be, with its problems watched. */
  openPage(options?: BrowserContextOptions): Promise<OpenedPage>;
  /** A profile already signed in with `token` (the pages' HttpOnly session cookie). */
  openSignedIn(token: string, options?: BrowserContextOptions): Promise<OpenedPage>;
}

/**
 * The app on a free port (PGlite, `env` added to the test config; read when the suite starts, so it may name
 * a server an earlier beforeAll started) and one Chromium for a browser test file, both closed after it. The
 * pages' modules are compiled first, as `npm run build` does.
 */
export function useWebSuite(
  env: () => Record<string, string> = () => ({}),
  /** Where to listen, when the app must know its own origin up front (WebAuthn's origins); default 127.0.0.1:0. */
  origin?: () => string,
): WebSuite {
  let browser: Browser | undefined;
  let base = '';
  const suite = {} as WebSuite;

  beforeAll(async () => {
    suite.ctx = await createTestApp('pglite', env());
    const fixed = origin ? new URL(origin()) : undefined;
    await suite.ctx.app.listen({ port: fixed ? Number(fixed.port) : 0, host: '127.0.0.1' });
    base = fixed ? fixed.origin : baseUrl(suite.ctx.app.server.address());
    browser = await launchChromium();
    // Compiling src/ and web/ is most of it: minutes on two cores that other suites share.
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    if (suite.ctx) await closeTestApp(suite.ctx);
  });

  suite.openPage = async (options = {}) => {
    if (!browser) throw new Error('the web suite has not started');
    const context = await browser.newContext({ locale: 'en-US', ...options, baseURL: base });
    const page = await context.newPage();
    return { page, problems: await watchProblems(page), context };
  };

  suite.openSignedIn = async (token, options = {}) => {
    const opened = await suite.openPage(options);
    await opened.context.addCookies([
      { name: 'accounts_session', value: token, url: base, httpOnly: true, sameSite: 'Strict' },
    ]);
    return opened;
  };

  return suite;
}

/**
 * A web suite whose app knows its own origin before it listens (PUBLIC_URL): on a free port of `host`.
 * `localhost` where WebAuthn runs (a passkey's RP ID must be a domain); `127.0.0.1` where stored media's
 * absolute addresses must be the page's own origin.
 */
export function useWebSuiteAtOwnOrigin(host: 'localhost' | '127.0.0.1'): WebSuite {
  let origin = '';
  beforeAll(async () => {
    origin = `http://${host}:${await freePort()}`;
  });
  return useWebSuite(
    () => ({ PUBLIC_URL: origin }),
    () => origin,
  );
}
