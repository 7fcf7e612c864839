import type { FastifyReply, FastifyRequest } from 'fastify';
import { reachedOverHttps } from '../http/https.js';
import { SESSION_COOKIE } from '../http/session-cookie.js';

/**
 * `Secure` only when the client reached us over https: a browser drops a Secure cookie set over plain
 * http://127.0.0.1, and the local walk-through must work.
 */
function attributes(request: FastifyRequest, maxAgeSeconds: number): string {
  const secure = reachedOverHttps(request) ? '; Secure' : '';
  return `; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure}`;
}

/** The pages' sign-in: the session cookie now carries the token (src/http/session-cookie.ts reads it). */
export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string): void {
  // A year at most; the token's own lifetime (TOKEN_TTL_DAYS) and revocation still decide whether it works.
  reply.header('set-cookie', `${SESSION_COOKIE}=${token}${attributes(request, 365 * 86_400)}`);
}

/** The pages' sign-out: the browser drops the session cookie. */
export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('set-cookie', `${SESSION_COOKIE}=${attributes(request, 0)}`);
}
