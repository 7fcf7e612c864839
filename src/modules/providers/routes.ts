import type { FastifyRequest } from 'fastify';
import { type AnyEndpoint, endpoint } from '../../http/endpoint.js';
import type { RateCounter } from '../../limits/rate-counter.js';
import { rules } from '../../validation/fields.js';
import { signedInExample, signedInResponse } from '../users/view.js';
import { credentialFields, requiredCredentialsIn } from './credentials.js';
import type { ProvidersService } from './service.js';

function userAgent(request: FastifyRequest): string | undefined {
  return request.headers['user-agent'];
}

/** Login exists only for a configured provider (any other is a natural 404). */
export function providerLoginEndpoint(
  providers: ProvidersService,
  name: string,
  /** The per-IP login limit, shared with email login: an attacker gains nothing by switching routes. */
  loginLimit: RateCounter,
): AnyEndpoint {
  return endpoint({
    method: 'POST',
    path: `/auth/login/${name}`,
    summary: `Log in with ${name}`,
    description: `The ${name} token is verified with ${name}. An identity with no account is a 401 not_registered.`,
    tag: 'auth',
    auth: 'none',
    limit: loginLimit,
    errors: [401, 429, 502],
    rules: rules(credentialFields(name, { use: 'identity' })),
    response: signedInResponse,
    example: { user: { ...signedInExample.user, providers: [name], has_password: false } },
    handle: ({ params, request }) =>
      providers.login(requiredCredentialsIn(params, name), {
        userAgent: userAgent(request),
        ip: request.ip,
      }),
  });
}
