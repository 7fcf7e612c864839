import type { FastifyInstance, FastifyRequest } from 'fastify';
import { consoleNav } from './console-nav.js';
import { securityHeaders } from './headers.js';
import { escapeHtml, type Translate } from './html.js';
import { MESSAGES, type MessageKey, pageLocale } from './i18n.js';
import { renderLayout } from './pages.js';

/** A signed-in console page: where it is served and its heading. */
export interface ConsolePage {
  url: string;
  title: MessageKey;
}

/**
 * Serves each of `pages` as a server-rendered shell of the console (its bar, its language switch, its small
 * script that calls the admin API), under the pages' security headers. The HTML names no staff member and
 * holds no data, but it differs by language, so it is never cached.
 */
export function registerConsolePages<P extends string>(
  app: FastifyInstance,
  policy: string,
  pages: Record<P, ConsolePage>,
  body: (page: P, t: Translate) => string,
): void {
  for (const page of Object.keys(pages) as P[]) {
    const { url, title } = pages[page];
    app.get(url, async (request, reply) => {
      securityHeaders(reply, policy);
      reply.header('cache-control', 'no-store');
      reply.header('vary', 'accept-language, cookie');
      reply.type('text/html; charset=utf-8');
      return render(request, page, url, title, body);
    });
  }
}

function render<P extends string>(
  request: FastifyRequest,
  page: P,
  url: string,
  title: MessageKey,
  body: (page: P, t: Translate) => string,
): string {
  const { locale } = pageLocale(request);
  const t = (key: MessageKey) => MESSAGES[locale][key];
  // The path as asked (a user's page carries the user's id), so the switch keeps the reader where they are.
  const path = escapeHtml(request.url.split('?')[0] ?? url);
  return renderLayout({
    locale,
    heading: t(title),
    name: page,
    switchHref: (other) => `${path}?lang=${other}`,
    content: body(page, t),
    script: { name: page, apiBase: '/admin/v1' },
    app: { brand: t('console.name'), href: '/console', nav: consoleNav(page, t, true) },
  });
}
