import type { FastifyReply } from 'fastify';

/**
 * Where @portone/browser-sdk loads PortOne's own script from (`https://cdn.portone.io/v2/browser-sdk.js`,
 * compiled into the npm package) and where that script loads its drivers from (`/drivers/`). The one origin
 * besides this one whose scripts a page may run, and only on the pages that run PortOne's window.
 */
export const PORTONE_SCRIPT_ORIGIN = 'https://cdn.portone.io';

/**
 * The pages' Content-Security-Policy: scripts, styles and calls only from this origin (no inline code), images
 * also from `blob:`/`data:` (the picture preview) and the media origin, nothing framed, no <base>, forms post
 * only here. A script injected into a page could still not send anything elsewhere.
 *
 * `portOne`, on the pages that run PortOne's verification window where PortOne is configured, adds PortOne
 * and nothing else: its script from PORTONE_SCRIPT_ORIGIN, and its servers (PORTONE_BROWSER_ORIGINS) to
 * connect to and to frame. The carriers' and gateways' own pages (Danal, KG Inicis, PASS) are not listed:
 * PortOne opens them in a popup on a computer and by a redirect on a phone, top-level windows that frame-src
 * does not govern, and a page PortOne frames inside its own frame answers to that frame's policy, not to
 * ours. So no other https origin may be framed here: a script that got into the page cannot lay another
 * site's frame over it. Should PortOne one day frame a gateway directly, the browser's console names the
 * origin, and PORTONE_BROWSER_ORIGINS takes it without a release.
 */
export function pagePolicy(
  mediaOrigin: string | undefined,
  portOne?: { browserOrigins: readonly string[] },
): string {
  const images = ["'self'", 'blob:', 'data:', ...(mediaOrigin ? [mediaOrigin] : [])].join(' ');
  const portOneOrigins = portOne ? ` ${portOne.browserOrigins.join(' ')}` : '';
  return [
    "default-src 'none'",
    `script-src 'self'${portOne ? ` ${PORTONE_SCRIPT_ORIGIN}` : ''}`,
    "style-src 'self'",
    `img-src ${images}`,
    `connect-src 'self'${portOneOrigins}`,
    ...(portOne ? [`frame-src${portOneOrigins}`] : []),
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/**
 * /docs: as strict as the pages. Swagger UI's bundle and stylesheet come from 'self' (its npm package), it
 * fetches /openapi.json from 'self', and its icons are inline SVG `data:` images, the one thing it needs
 * beyond 'self'. Its React styles are set through the CSSOM, which style-src does not restrict, so no
 * 'unsafe-inline' (test/browser/api-docs.test.ts fails on any violation).
 */
export const DOCS_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/**
 * `same-origin` keeps every page out of reach of the window that opened it, and of the windows it opens.
 * `same-origin-allow-popups` (the pages running PortOne's window, where PortOne is configured) still keeps
 * the page from its opener, but keeps its hold on the popups it opens itself: PortOne's verification window
 * on a computer is such a popup, which PortOne's script watches (closed by the person means cancelled) and
 * which reports back to this page. Under `same-origin` the popup would look closed the moment it opened.
 */
export type OpenerPolicy = 'same-origin' | 'same-origin-allow-popups';

export function securityHeaders(
  reply: FastifyReply,
  policy: string,
  opener: OpenerPolicy = 'same-origin',
): void {
  reply.header('content-security-policy', policy);
  reply.header('x-content-type-options', 'nosniff');
  // The reset and verification pages carry their token in the URL: no Referer may take it anywhere.
  reply.header('referrer-policy', 'no-referrer');
  reply.header('x-frame-options', 'DENY');
  reply.header('cross-origin-opener-policy', opener);
}
