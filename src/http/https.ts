import type { FastifyRequest } from 'fastify';

/**
 * Whether the client reached us over https: a TLS socket, or a trusted proxy's `X-Forwarded-Proto` naming
 * https at any hop of its chain, in any case (`HTTPS`, `https, http`: the front entry is the browser's own
 * connection). Fastify answers `protocol` with the header's last entry only when the peer is a trusted
 * proxy (TRUST_PROXY), which is how trust is told here. A peer that is not trusted and ends its header with
 * our socket's own scheme is not told apart: it can at most make its own cookie Secure, which is harmless.
 */
export function reachedOverHttps(request: FastifyRequest): boolean {
  if (request.protocol.toLowerCase() === 'https') return true;
  const header = request.headers['x-forwarded-proto'];
  if (typeof header !== 'string') return false;
  const entries = header.split(',').map((entry) => entry.trim());
  if (request.protocol !== entries.at(-1)) return false;
  return entries.some((entry) => entry.toLowerCase() === 'https');
}
