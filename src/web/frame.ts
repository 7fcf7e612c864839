import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Locale } from '../validation/messages.js';
import { securityHeaders } from './headers.js';
import { escapeHtml } from './html.js';
import { MESSAGES, pageLocale } from './i18n.js';
import { renderLayout } from './pages.js';

/**
 * /docs: Swagger UI inside a frame of ours in the reader's language (title, a way back, a line on what it
 * shows); web/src/docs.ts turns on Swagger UI's own dark mode when the reader's system is dark.
 */
export function docsHtml(locale: Locale): string {
  const t = MESSAGES[locale];
  return `<!doctype html>
<html lang="${locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${escapeHtml(t['docs.title'])} · ${escapeHtml(t['site.name'])}</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<link rel="stylesheet" href="/assets/docs.css">
<link rel="icon" href="data:,">
<script src="/assets/docs-theme.js"></script>
</head>
<body>
<header class="docs-frame">
<nav class="docs-back" aria-label="${escapeHtml(t['site.name'])}"><a href="/">${escapeHtml(t['docs.back'])}</a></nav>
<p class="docs-lead">${escapeHtml(t['docs.lead'])}</p>
</header>
<div id="swagger-ui" lang="en"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/assets/docs.js"></script>
</body>
</html>
`;
}

/** The 404 page: the product's layout in the reader's language, a way home, no script. */
export function notFoundHtml(locale: Locale, signedIn: boolean): string {
  const t = MESSAGES[locale];
  return renderLayout({
    locale,
    heading: t['notfound.title'],
    name: 'not-found',
    signedIn,
    switchHref: (other) => `?lang=${other}`,
    content: `<div class="card">
<p class="lead">${escapeHtml(t['notfound.lead'])}</p>
<p class="actions"><a class="button primary" href="/">${escapeHtml(t['notfound.home'])}</a></p>
</div>`,
  });
}

/** The weight a request's Accept gives a media type (`text/html`), 0 when absent; `*\/*` counts for any. */
function weightOf(accept: string, type: string): number {
  let best = 0;
  let exact = false;
  for (const part of accept.split(',')) {
    const [range = '', ...parameters] = part.trim().toLowerCase().split(';');
    const q = parameters.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    if (!Number.isFinite(weight)) continue;
    if (range.trim() === type) {
      best = exact ? Math.max(best, weight) : weight;
      exact = true;
    } else if (!exact && range.trim() === '*/*') best = Math.max(best, weight);
  }
  return best;
}

/** A browser's request: it names text/html and ranks it above JSON (API clients never name it). */
export function wantsHtml(request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? '';
  if (!/\btext\/html\b/i.test(accept)) return false;
  const html = weightOf(accept, 'text/html');
  return html > 0 && html >= weightOf(accept, 'application/json');
}

/**
 * An unknown address opened in a browser (GET or HEAD, asking for HTML) gets the 404 page; every other
 * client keeps the 404 envelope the error catalogue gives it (the status stays 404 either way). Only
 * requests no route matched: a known route's 404 (an unknown post, an unknown document) is its own answer.
 */
export function registerNotFoundPage(
  app: FastifyInstance,
  policy: string,
  signedIn: (request: FastifyRequest) => Promise<boolean>,
): void {
  // A callback hook, not an async one: every other answer passes through without a promise.
  app.addHook('onSend', (request: FastifyRequest, reply: FastifyReply, payload, done) => {
    if (reply.statusCode !== 404 || request.routeOptions.url !== undefined) return done(null, payload);
    if ((request.method !== 'GET' && request.method !== 'HEAD') || !wantsHtml(request))
      return done(null, payload);
    // A session that cannot be checked (the database away) only leaves the links of a visitor.
    void signedIn(request)
      .catch(() => false)
      .then((signed) => {
        securityHeaders(reply, policy);
        reply.header('cache-control', 'no-store');
        reply.header('vary', 'accept, accept-language, cookie');
        reply.header('content-type', 'text/html; charset=utf-8');
        done(null, notFoundHtml(pageLocale(request).locale, signed));
      });
  });
}
