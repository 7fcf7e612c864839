import type { FastifyReply, FastifyRequest } from 'fastify';
import { STAFF_COOKIE } from './admin-endpoint.js';
import { reachedOverHttps } from './https.js';

/**
 * The staff session's cookie: HttpOnly (no script reads it), SameSite=Strict (no other site's page sends it),
 * Secure behind https, and Path=/admin, so it reaches the admin API alone — never the app's API, the user
 * pages or the console's pages (which hold no data: their scripts call the admin API). Its Max-Age is the
 * absolute 12 hours; the idle end is the server's to decide.
 */
function attributes(request: FastifyRequest, maxAgeSeconds: number): string {
  const secure = reachedOverHttps(request) ? '; Secure' : '';
  return `; Path=/admin; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure}`;
}

export function setStaffCookie(
  request: FastifyRequest,
  reply: FastifyReply,
  token: string,
  maxAgeSeconds: number,
): void {
  reply.header('set-cookie', `${STAFF_COOKIE}=${token}${attributes(request, maxAgeSeconds)}`);
}

export function clearStaffCookie(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('set-cookie', `${STAFF_COOKIE}=${attributes(request, 0)}`);
}
