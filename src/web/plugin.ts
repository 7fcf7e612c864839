import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ForbiddenError, UnauthenticatedError } from '../errors.js';
import { bearerToken } from '../http/auth.js';
import { NO_FILES } from '../http/body-parsers.js';
import { ok } from '../http/envelope.js';
import { sendRefusal } from '../http/errors.js';
import {
  cookieValue,
  isSameOriginWebRequest,
  SESSION_COOKIE,
  sessionCookieToken,
} from '../http/session-cookie.js';
import { loadWebAssets } from './assets.js';
import { registerConsolePages } from './console.js';
import { registerConsoleContentPages } from './console-content.js';
import { registerConsolePromotionPages } from './console-promotions.js';
import { registerConsoleUserPages } from './console-users.js';
import { registerConsoleWebhookPage } from './console-webhooks.js';
import { docsHtml, registerNotFoundPage } from './frame.js';
import { DOCS_POLICY, pagePolicy, securityHeaders } from './headers.js';
import { LANG_COOKIE, pageLocale } from './i18n.js';
import { type LegalDocuments, registerLegalPages } from './legal.js';
import { PAGES, type PageName, PORTONE_PAGES, renderPage } from './pages.js';
import { clearSessionCookie, setSessionCookie } from './session-cookie.js';

/** What the web session routes need from the services: check a token, and revoke one at sign-out. */
export interface WebSessions {
  authenticate(token: string): Promise<{ tokenId: string } | undefined>;
  revoke(tokenId: string): Promise<void>;
}

export interface WebOptions {
  /** The API version the pages call, e.g. `dev`. */
  apiVersion: string;
  /** The origin profile pictures are served from when it is not this one (S3, a CDN). */
  mediaOrigin: string | undefined;
  /** Serve the API docs at /docs (DOCS_ENABLED); off, /docs is the 404 envelope and no page links to it. */
  docs: boolean;
  /** DELETION_GRACE_DAYS, which the profile's deletion card states. */
  deletionGraceDays: number;
  /** AGE_GATE=birth_date: the sign-up page asks the date of birth. */
  ageGate: boolean;
  /**
   * PortOne's browser origins (PORTONE_BROWSER_ORIGINS) where identity verification is configured: the
   * pages that run its window (PORTONE_PAGES) admit PortOne in their CSP. Undefined: no page does.
   */
  portOne: { browserOrigins: readonly string[] } | undefined;
  /** Codes can be texted (SOLAPI, or development's log): the pages offer the mobile number. */
  phone: boolean;
}

/** The request's query without `lang`, for the language switch's links. */
function queryWithoutLang(request: FastifyRequest): URLSearchParams {
  const query = new URLSearchParams(request.url.split('?')[1] ?? '');
  query.delete('lang');
  return query;
}

/**
 * The web pages: the sign-up, log-in, profile, verify-email, reset-password and cancel-deletion pages, the
 * consent documents' pages (/legal/…), their assets, the session cookie routes, and the API docs at /docs
 * unless turned off. Everything else stays the API's 404 envelope.
 */
export async function registerWeb(
  app: FastifyInstance,
  sessions: WebSessions,
  documents: LegalDocuments,
  options: WebOptions,
): Promise<void> {
  const { assets, missing } = await loadWebAssets();
  if (missing.length > 0) {
    app.log.warn({ missing }, 'web page assets are missing (run `npm run build`): the pages will not work');
  }
  const policy = pagePolicy(options.mediaOrigin);
  /**
   * Whether the page's cookie is a live session (the navigation then offers the account). A page's own
   * navigation carries no header of the pages' calls, so the cookie is read as it is: it only chooses links
   * (SameSite=Strict keeps it off other sites' navigations anyway).
   */
  const signedIn = async (request: FastifyRequest): Promise<boolean> => {
    const token = cookieValue(request.headers.cookie, SESSION_COOKIE);
    if (token === undefined || !/^[A-Za-z0-9_-]{1,512}$/.test(token)) return false;
    return (await sessions.authenticate(token)) !== undefined;
  };
  const apiBase = `/${options.apiVersion}`;
  // PortOne is admitted only where its window runs, and only where it is configured: every other page,
  // and these too without PortOne, keep the strict policy.
  const portOnePolicy = options.portOne ? pagePolicy(options.mediaOrigin, options.portOne) : undefined;

  for (const [page, url] of Object.entries(PAGES) as Array<[PageName, string]>) {
    const runsPortOne = portOnePolicy !== undefined && PORTONE_PAGES.has(page);
    const pageHeaders = runsPortOne
      ? { policy: portOnePolicy, opener: 'same-origin-allow-popups' as const }
      : { policy, opener: 'same-origin' as const };
    app.get(url, async (request, reply) => {
      const { locale, chosen } = pageLocale(request);
      // The switch's choice is remembered for the next pages (a preference, not a secret: readable by script).
      if (chosen)
        reply.header('set-cookie', `${LANG_COOKIE}=${locale}; Path=/; SameSite=Lax; Max-Age=31536000`);
      securityHeaders(reply, pageHeaders.policy, pageHeaders.opener);
      reply.header('cache-control', 'no-store');
      reply.header('vary', 'accept-language, cookie');
      reply.type('text/html; charset=utf-8');
      return renderPage({
        page,
        locale,
        apiBase,
        query: queryWithoutLang(request),
        docs: options.docs,
        deletionGraceDays: options.deletionGraceDays,
        ageGate: options.ageGate,
        identity: options.portOne !== undefined,
        phone: options.phone,
        signedIn: await signedIn(request),
      });
    });
    // A form sent before the page's script took it over (still loading on a slow network, or blocked): its
    // forms post, so nothing typed reaches a URL, and what they held is dropped; the browser gets the page
    // again, as a GET, and the form works once the script runs.
    app.post(url, async (request, reply) => {
      const query = request.url.split('?')[1];
      reply.header('cache-control', 'no-store');
      return reply.redirect(query ? `${url}?${query}` : url, 303);
    });
  }

  registerLegalPages(app, documents, policy);
  registerConsolePages(app, policy);
  registerConsoleUserPages(app, policy);
  registerConsoleContentPages(app, policy);
  registerConsoleWebhookPage(app, policy);
  registerConsolePromotionPages(app, policy);
  registerNotFoundPage(app, policy, signedIn);

  if (options.docs) {
    app.get('/docs', async (request, reply) => {
      securityHeaders(reply, DOCS_POLICY);
      reply.header('vary', 'accept-language, cookie');
      reply.type('text/html; charset=utf-8');
      return docsHtml(pageLocale(request).locale);
    });
  }

  const serveAsset = (prefix: string) =>
    app.get(`${prefix}/*`, async (request, reply) => {
      const asset = assets.get(request.url.split('?')[0] ?? '');
      if (!asset) return sendRefusal(reply, 'not_found');
      reply.header('x-content-type-options', 'nosniff');
      // Not content-hashed names: revalidate each time (cheap, and a deploy is seen at once).
      reply.header('cache-control', 'no-cache');
      reply.type(asset.type);
      return asset.body;
    });
  serveAsset('/assets');
  if (options.docs) serveAsset('/docs/assets');

  /**
   * After logging in through the API (whose answer carries the token once), the page hands the token here as a
   * Bearer and forgets it; from then on only the HttpOnly cookie holds it. Same-origin requests only: a
   * cross-site page must not plant its own session in a visitor's browser (login CSRF).
   */
  app.post('/web/session', { config: NO_FILES }, async (request, reply) => {
    if (!isSameOriginWebRequest(request)) throw new ForbiddenError();
    const token = bearerToken(request.headers.authorization);
    const session = token === undefined ? undefined : await sessions.authenticate(token);
    if (!token || !session) throw new UnauthenticatedError();
    setSessionCookie(request, reply, token);
    return ok({ status: 'signed_in' });
  });

  /** Sign-out: revokes the cookie's token (like auth/logout) and clears the cookie, which script cannot do. */
  app.post('/web/session/end', { config: NO_FILES }, async (request, reply) => {
    if (!isSameOriginWebRequest(request)) throw new ForbiddenError();
    const token = sessionCookieToken(request);
    const session = token === undefined ? undefined : await sessions.authenticate(token);
    if (session) await sessions.revoke(session.tokenId);
    clearSessionCookie(request, reply);
    return ok({ status: 'signed_out' });
  });
}
