import type { FastifyInstance } from 'fastify';
import { sendRefusal } from '../http/errors.js';
import { type LegalPage, legalPagePath } from '../modules/consents/view.js';
import type { Locale } from '../validation/messages.js';
import { securityHeaders } from './headers.js';
import { escapeHtml } from './html.js';
import { isLocale, MESSAGES, pageLocale } from './i18n.js';
import { documentHtml } from './legal-text.js';
import { renderLayout } from './pages.js';

/** What the documents' pages need from the consents service; each throws NotFoundError for what is not there. */
export interface LegalDocuments {
  /** One version's page in `lang`, else English, else the language it has a text in. */
  page(key: string, version: number, lang: Locale): Promise<LegalPage>;
  /** Where `/legal/<key>` sends a reader: the current version's page in `locale`. */
  currentPage(key: string, locale: Locale): Promise<{ url: string }>;
}

/** A version number as a path segment: 1 to 999999999, no leading zero (one URL per version). */
const VERSION = /^[1-9]\d{0,8}$/;

/** A document's page: its title, version and text, in the layout of every page (no script: nothing to run). */
export function renderLegalPage(page: LegalPage, locale: Locale): string {
  const t = MESSAGES[locale];
  const notices: string[] = [];
  if (page.lang !== locale) notices.push(`<p class="notice">${escapeHtml(t['legal.other_language'])}</p>`);
  if (page.version !== page.currentVersion) {
    const lead = t['legal.older'].replace('{current}', String(page.currentVersion));
    const link = `<a href="${escapeHtml(`/legal/${encodeURIComponent(page.key)}`)}">${escapeHtml(t['legal.current_link'])}</a>`;
    notices.push(`<p class="notice">${escapeHtml(lead)} ${link}</p>`);
  }
  const content = [
    `<p class="meta">${escapeHtml(t['legal.version'].replace('{version}', String(page.version)))}</p>`,
    ...notices,
    `<article class="card document" lang="${escapeHtml(page.lang)}">\n${documentHtml(page.body)}\n</article>`,
  ].join('\n');
  return renderLayout({
    locale,
    heading: page.title,
    name: 'legal',
    switchHref: (other) => legalPagePath(page.key, page.version, other),
    content,
  });
}

/**
 * The consent documents' own pages, which consents/documents and the sign-up and profile pages link to:
 * `/legal/<key>/<version>/<lang>` shows that version (users agreed to a version, so every version keeps its
 * page) in `lang`, `ko` or `en` (any other code is a 404: the pages around the text exist in those two);
 * `/legal/<key>` redirects to the current version in the reader's language, for links that must not age.
 * An unknown document or version is the 404 every unknown page is.
 */
export function registerLegalPages(app: FastifyInstance, documents: LegalDocuments, policy: string): void {
  app.get('/legal/:key/:version/:lang', async (request, reply) => {
    const { key, version, lang } = request.params as { key: string; version: string; lang: string };
    if (!isLocale(lang) || !VERSION.test(version)) return sendRefusal(reply, 'not_found');
    const page = await documents.page(key, Number(version), lang);
    securityHeaders(reply, policy);
    // A published version's text does not change; a few minutes of caching spares a busy sign-up screen.
    reply.header('cache-control', 'public, max-age=300');
    reply.type('text/html; charset=utf-8');
    return renderLegalPage(page, lang);
  });

  app.get('/legal/:key', async (request, reply) => {
    const { key } = request.params as { key: string };
    const { url } = await documents.currentPage(key, pageLocale(request).locale);
    securityHeaders(reply, policy);
    // Where it leads changes with each version and with the reader's language.
    reply.header('cache-control', 'no-store');
    reply.header('vary', 'accept-language, cookie');
    return reply.redirect(url, 302);
  });
}
