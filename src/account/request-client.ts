import type { FastifyRequest } from 'fastify';
import { presentedToken } from '../http/credentials.js';
import { preferredLocale } from '../validation/messages.js';
import type { ClientInfo } from './client.js';

/** What the account use cases need to know of the request's client (the routes' side of ClientInfo). */
export function clientInfo(request: FastifyRequest): ClientInfo {
  return {
    userAgent: request.headers['user-agent'],
    ip: request.ip,
    // A login may present the device's previous api_token (as any request presents one): see docs/SECURITY.md.
    deviceToken: presentedToken(request),
    locale: preferredLocale(request.headers['accept-language']),
  };
}
