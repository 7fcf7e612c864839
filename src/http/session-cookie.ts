import type { FastifyRequest } from 'fastify';

/**
 * The web pages' session: the API token in an HttpOnly cookie, so no script on the page (ours included, after
 * sign-in) can read it. See docs/SECURITY.md "Web pages". Read here, where the API authenticates a request;
 * src/web/session-cookie.ts sets and clears it.
 */
export const SESSION_COOKIE = 'accounts_session';

/**
 * The header every call of the web pages carries. A cross-site form cannot send a custom header, and a
 * cross-origin fetch with one needs a CORS preflight that CORS_ORIGINS never grants for it (and CORS runs
 * without credentials), so its presence proves the request came from a page of this origin.
 */
export const WEB_HEADER = 'x-requested-with';
export const WEB_HEADER_VALUE = 'accounts-web';

/** The value of one cookie of the `Cookie` header, or undefined. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const index = part.indexOf('=');
    if (index < 0) continue;
    if (part.slice(0, index).trim() !== name) continue;
    const value = part.slice(index + 1).trim();
    return value === '' ? undefined : value;
  }
  return undefined;
}

/**
 * Whether the request is one the web pages of this origin made: the custom header is present, and the
 * browser does not say it is cross-site (`Sec-Fetch-Site`), and an `Origin`, when sent, is this host.
 * Each check alone refuses a cross-site forgery; together they also survive a browser that lacks one.
 */
export function isSameOriginWebRequest(request: FastifyRequest): boolean {
  if (request.headers[WEB_HEADER] !== WEB_HEADER_VALUE) return false;
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') return false;
  const origin = request.headers.origin;
  if (origin !== undefined) {
    let host: string;
    try {
      host = new URL(origin).host;
    } catch {
      return false;
    }
    // request.host: the Host header, or a trusted proxy's X-Forwarded-Host (TRUST_PROXY).
    if (host !== request.host) return false;
  }
  return true;
}

/** The token of the session cookie, presented only by a same-origin request of the web pages (CSRF defence). */
export function sessionCookieToken(request: FastifyRequest): string | undefined {
  const token = cookieValue(request.headers.cookie, SESSION_COOKIE);
  if (token === undefined || !/^[A-Za-z0-9_-]{1,512}$/.test(token)) return undefined;
  return isSameOriginWebRequest(request) ? token : undefined;
}

/**
 * Whether a same-origin request of the web pages carries the session cookie, valid or not: that request is
 * the page using its session, so a stale one is a credential that failed. A cross-site request's cookie is
 * never a credential it presents.
 */
export function sessionCookiePresented(request: FastifyRequest): boolean {
  return cookieValue(request.headers.cookie, SESSION_COOKIE) !== undefined && isSameOriginWebRequest(request);
}
