import type { FastifyRequest } from 'fastify';
import { bearerToken } from './auth.js';
import { sessionCookiePresented, sessionCookieToken } from './session-cookie.js';

/**
 * What a request presents to authenticate: nothing; one token; or a credential that can prove nobody — one
 * that is malformed (an `Authorization` header that is not `Bearer <token>`, an `api_token` that is not a
 * string), or two that differ.
 */
export type PresentedCredential = { kind: 'none' } | { kind: 'token'; token: string } | { kind: 'refused' };

/** Stands for a credential that is there but cannot be a token; never equal to a token (which has no NUL). */
const UNUSABLE = '\0unusable';

/**
 * Every credential the request carries, each as a token or UNUSABLE: a non-empty `api_token` in the query
 * or the body, a non-empty `Authorization` header of any scheme, the session cookie of a same-origin request
 * of the web pages. Absent, null and empty count as not sent, as for every other parameter.
 */
function credentialsOf(request: FastifyRequest): string[] {
  const found: string[] = [];
  const parameter = (value: unknown) => {
    if (value === undefined || value === null || value === '') return;
    found.push(typeof value === 'string' ? value : UNUSABLE);
  };
  parameter((request.query as Record<string, unknown> | undefined)?.api_token);
  const body = request.body as Record<string, unknown> | undefined;
  parameter(body && typeof body === 'object' ? body.api_token : undefined);
  const authorization = request.headers.authorization ?? '';
  if (authorization !== '') found.push(bearerToken(authorization) ?? UNUSABLE);
  if (sessionCookiePresented(request)) {
    found.push(sessionCookieToken(request) ?? UNUSABLE);
  }
  return found;
}

/**
 * The first usable token, in the order Laravel's token guard looks for it (`api_token` in the query, then
 * the body, then `Authorization: Bearer`, last the web pages' session cookie): what a sign-in reads as the
 * device's previous token. Authentication asks `presentedCredential`, which refuses a request carrying two.
 */
export function presentedToken(request: FastifyRequest): string | undefined {
  return credentialsOf(request).find((credential) => credential !== UNUSABLE);
}

/**
 * The one credential of the request. Two different ones (a Bearer header and an `api_token`, a header and the
 * session cookie, …) are refused, never resolved by which one is read first: otherwise a wrong header in
 * front of a stolen query token, or a page's cookie beside an app's header, would decide for the server whose
 * request it is. The same token presented twice (the header and the query both) is one credential.
 */
export function presentedCredential(request: FastifyRequest): PresentedCredential {
  const distinct = new Set(credentialsOf(request));
  if (distinct.size === 0) return { kind: 'none' };
  const [only] = distinct;
  if (distinct.size > 1 || only === undefined || only === UNUSABLE) return { kind: 'refused' };
  return { kind: 'token', token: only };
}
