import { newApiToken } from '../../src/lib/tokens.js';
import { bearer } from './factories.js';

/*
 * The ways a request presents a credential, good or bad, for the suites that try each on every protected
 * route (protected-routes.security.test.ts).
 */

/** A credential as a request carries it: headers, and a token in the query string or the form body. */
export interface Presentation {
  name: string;
  headers?: Record<string, string>;
  query?: string;
  body?: string;
}

/** The same dead token in each place the guard looks (query, form body, header, the web pages' cookie). */
export function everywhere(name: string, token: string): Presentation[] {
  return [
    { name: `${name} (header)`, headers: bearer(token) },
    { name: `${name} (query)`, query: token },
    { name: `${name} (body)`, body: token },
    {
      name: `${name} (web session cookie)`,
      headers: { cookie: `accounts_session=${token}`, 'x-requested-with': 'accounts-web' },
    },
  ];
}

/** Authorization headers that are not `Bearer <token>`, each around a token that is live. */
export function malformed(live: string): Presentation[] {
  const headers = [
    'Bearer',
    'Bearer ',
    `Bearer${live}`,
    `Bearer ${live} extra`,
    `Bearer "${live}"`,
    `Token ${live}`,
    `Basic ${Buffer.from(`user:${live}`).toString('base64')}`,
    `${live}`,
    `Bearer ${live}%00`,
  ];
  return headers.map((authorization) => ({
    name: `malformed: ${authorization}`,
    headers: { authorization },
  }));
}

/**
 * Two different credentials in one request, each of a live or a dead token: refused whichever is read first,
 * never served by one of them. (A body token is left out: a GET carries none, and would present one only.)
 */
export function twoCredentials(live: string, otherLive: string): Presentation[] {
  const webCookie = (token: string) => ({
    cookie: `accounts_session=${token}`,
    'x-requested-with': 'accounts-web',
  });
  return [
    { name: 'two: unknown Bearer, live query token', headers: bearer(newApiToken()), query: live },
    { name: 'two: live Bearer, unknown query token', headers: bearer(live), query: newApiToken() },
    { name: "two: live Bearer, another user's live query token", headers: bearer(live), query: otherLive },
    {
      name: 'two: malformed Authorization, live query token',
      headers: { authorization: 'Token x' },
      query: live,
    },
    {
      name: "two: live session cookie, another user's live Bearer",
      headers: { ...bearer(otherLive), ...webCookie(live) },
    },
    { name: 'two: unknown session cookie, live query token', headers: webCookie(newApiToken()), query: live },
  ];
}
