import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';

const PORTONE = {
  PORTONE_API_SECRET: 'portone-secret',
  PORTONE_STORE_ID: 'store-1',
  PORTONE_CHANNEL_KEY: 'channel-key-1',
};

/** Today's strict page policy, written out: a page that does not run PortOne's window keeps it exactly. */
const STRICT = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' blob: data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

const PORTONE_PAGES = ['/profile', '/guardian-consent?token=x'];
const OTHER_PAGES = [
  '/',
  '/signup',
  '/login',
  '/forgot-password',
  '/verify-email?token=x',
  '/reset-password?token=x',
  '/cancel-deletion?token=x',
  '/account-deleted',
];

/**
 * The pages' CSP where PortOne is configured: the two pages that run its verification window (the profile's
 * identity card, the guardian's page) admit PortOne's script, servers and frames, and keep the page's hold on
 * PortOne's pop-up; every other page, and /docs, keeps the strict policy to the character. Without PortOne
 * no page admits it (web-session.security.test.ts); PORTONE_BROWSER_ORIGINS: config-identity.test.ts.
 */
describe('web pages with PortOne configured', () => {
  const ctx = useTestApp('pglite', PORTONE);

  it('admits PortOne on /profile and /guardian-consent only', async () => {
    for (const url of PORTONE_PAGES) {
      const res = await ctx.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-security-policy'], url).toBe(
        [
          "default-src 'none'",
          "script-src 'self' https://cdn.portone.io",
          "style-src 'self'",
          "img-src 'self' blob: data:",
          "connect-src 'self' https://*.portone.io https://*.iamport.co https://*.iamport.kr",
          'frame-src https://*.portone.io https://*.iamport.co https://*.iamport.kr',
          "form-action 'self'",
          "frame-ancestors 'none'",
          "base-uri 'none'",
        ].join('; '),
      );
      expect(res.headers['cross-origin-opener-policy'], url).toBe('same-origin-allow-popups');
      expect(res.headers['x-frame-options'], url).toBe('DENY');
      expect(res.headers['referrer-policy'], url).toBe('no-referrer');
    }
  });

  it('keeps every other page, and /docs, as strict as without PortOne', async () => {
    for (const url of OTHER_PAGES) {
      const res = await ctx.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-security-policy'], url).toBe(STRICT);
      expect(res.headers['cross-origin-opener-policy'], url).toBe('same-origin');
    }
    const docs = await ctx.app.inject({ method: 'GET', url: '/docs' });
    expect(docs.headers['content-security-policy']).not.toContain('portone');
    expect(docs.headers['cross-origin-opener-policy']).toBe('same-origin');
  });
});
