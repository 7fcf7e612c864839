import type { FastifyReply, FastifyRequest } from 'fastify';
import { SESSION_COOKIE } from '../http/session-cookie.js';

/**
 * Whether the client reached us over https: a TLS socket, or a trusted proxy's `X-Forwarded-Proto` naming
 * https at any hop of its chain, in any case (`HTTPS`, `https, http`: the front entry is the browser's own
 * connection). Fastify answers `protocol` with the header's last entry only when the peer is a trusted
 * proxy (TRUST_PROXY), which is how trust is told here. A peer that is not trusted and ends its header with
 * our socket's own scheme is not told apart: it can at most make its own cookie Secure, which is harmless.
 */
function reachedOverHttps(request: FastifyRequest): boolean {
  if (request.protocol.toLowerCase() === 'https') return true;
  const header = request.headers['x-forwarded-proto'];
  if (typeof header !== 'string') return false;
  const entries = header.split(',').map((entry) => entry.trim());
  if (request.protocol !== entries.at(-1)) return false;
  return entries.some((entry) => entry.toLowerCase() === 'https');
}

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
