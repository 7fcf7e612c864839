import type { FastifyReply } from 'fastify';

/**
 * The pages' Content-Security-Policy: scripts, styles and calls only from this origin (no inline code), images
 * also from `blob:`/`data:` (the picture preview) and the media origin, nothing framed, no <base>, forms post
 * only here. A script injected into a page could still not send anything elsewhere.
 */
export function pagePolicy(mediaOrigin: string | undefined): string {
  const images = ["'self'", 'blob:', 'data:', ...(mediaOrigin ? [mediaOrigin] : [])].join(' ');
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src ${images}`,
    "connect-src 'self'",
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

export function securityHeaders(reply: FastifyReply, policy: string): void {
  reply.header('content-security-policy', policy);
  reply.header('x-content-type-options', 'nosniff');
  // The reset and verification pages carry their token in the URL: no Referer may take it anywhere.
  reply.header('referrer-policy', 'no-referrer');
  reply.header('x-frame-options', 'DENY');
  reply.header('cross-origin-opener-policy', 'same-origin');
}
