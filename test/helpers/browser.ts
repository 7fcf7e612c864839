import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';

/** Debian's Chromium (apt-get install chromium fonts-noto-cjk); CHROMIUM_PATH points elsewhere. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Whether the browser suites can run. Without Chromium they skip, except in CI, where they fail. */
export const chromiumInstalled = existsSync(CHROMIUM_PATH);

/** The message a skipped (or, with CI=true, failed) browser suite gives. */
export const CHROMIUM_MISSING = `Chromium not found at ${CHROMIUM_PATH}: the browser suites need it (apt-get install chromium fonts-noto-cjk, or set CHROMIUM_PATH)`;

const SCREENSHOTS = fileURLToPath(new URL('../../test-results/screenshots/', import.meta.url));

/**
 * One headless Chromium for a test file. The flags keep it off the network it would otherwise call home to
 * (this machine's closed network refuses those connections, and tests talk to 127.0.0.1 only); playwright
 * gives it a fresh temporary profile each launch.
 */
export function launchChromium(): Promise<Browser> {
  const root = process.getuid?.() === 0;
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    timeout: 60_000,
    args: [
      ...(root ? ['--no-sandbox'] : []),
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** The base URL of a Fastify app listening on 127.0.0.1. */
/** A port free right now: the app must know its origin before it listens (WebAuthn checks the origin). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export function baseUrl(address: AddressInfo | string | null): string {
  if (!address || typeof address === 'string') throw new Error('the app is not listening on a TCP port');
  return `http://127.0.0.1:${address.port}`;
}

/** What went wrong on a page: console errors (CSP violations are reported there) and uncaught exceptions. */
export interface PageProblems {
  errors: string[];
}

/**
 * Chromium logs every 4xx answer of a fetch as a console error ("Failed to load resource"). A 422 from
 * validate/* or a 401 from a wrong password is an answer the page expects and shows; only those of the API
 * (the `/dev/` version the pages call) are let through, never a missing asset or page.
 */
function isApiAnswer(text: string, url: string): boolean {
  if (!/^Failed to load resource: the server responded with a status of 4\d\d/.test(text)) return false;
  return /^\/dev\//.test(new URL(url, 'http://127.0.0.1').pathname);
}

/**
 * Records every console error, uncaught exception and CSP violation of the page, so each step can assert there
 * were none. The violation listener is added by Playwright's init script, which the page's CSP does not cover.
 */
export async function watchProblems(page: Page): Promise<PageProblems> {
  const problems: PageProblems = { errors: [] };
  page.on('console', (message) => {
    if (message.type() !== 'error' || isApiAnswer(message.text(), message.location().url)) return;
    problems.errors.push(`console: ${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => problems.errors.push(`exception: ${error.message}`));
  await page.exposeFunction('__reportCspViolation', (text: string) => problems.errors.push(`csp: ${text}`));
  // A string, not a function: this file is compiled without the DOM library.
  await page.addInitScript(
    `document.addEventListener('securitypolicyviolation', (event) =>
      window.__reportCspViolation(event.violatedDirective + ' blocked ' + event.blockedURI));`,
  );
  return problems;
}

/** Asserts the page has had no console error, exception or CSP violation so far. */
export function expectNoProblems(problems: PageProblems): void {
  expect(problems.errors).toEqual([]);
}

/** A full-page screenshot under test-results/screenshots/<suite>/<step>.png, for a reviewer to look at. */
export async function screenshot(page: Page, suite: string, step: string): Promise<void> {
  const dir = path.join(SCREENSHOTS, suite);
  await mkdir(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, `${step}.png`), fullPage: true });
}

/** Elements whose right edge passes the viewport, and the page's scroll width: nothing may scroll sideways. */
function overflowing(page: Page): Promise<{ scrollWidth: number; innerWidth: number; elements: string[] }> {
  // A string, not a function: this file is compiled without the DOM library.
  return page.evaluate(`(() => {
    const width = window.innerWidth;
    const elements = [...document.querySelectorAll('body *')]
      .filter((element) => element.getBoundingClientRect().right > width + 0.5)
      .map((element) => element.tagName.toLowerCase() + (element.id ? '#' + element.id : ''));
    return { scrollWidth: document.documentElement.scrollWidth, innerWidth: width, elements };
  })()`);
}

/** Screenshots at a phone's (390 px) and a desktop's (1280 px) width, each without horizontal overflow. */
export async function lookAt(page: Page, suite: string, step: string): Promise<void> {
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    await screenshot(page, suite, `${width}-${step}`);
    const layout = await overflowing(page);
    expect(layout, `${step} at ${width} px`).toMatchObject({ elements: [] });
    expect(layout.scrollWidth, `${step} at ${width} px`).toBeLessThanOrEqual(layout.innerWidth);
  }
}

/** Requests held back by `holdRequests`: `release()` lets them go on; `handled()` settles once they have. */
export interface HeldRequests {
  release(): void;
  handled(): Promise<void>;
}

/** Holds every request of `page` matching `url` (a glob) until `release()`: a slow network, on cue. */
export async function holdRequests(page: Page, url: string): Promise<HeldRequests> {
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const pending: Promise<void>[] = [];
  await page.route(url, (route) => {
    // The page may be gone by the time it is released: then there is nothing to go on with.
    const going = held.then(() => route.continue().catch(() => undefined));
    pending.push(going);
    return going;
  });
  return { release, handled: async () => void (await Promise.all(pending)) };
}
