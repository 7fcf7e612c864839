import type { FastifyRequest } from 'fastify';
import { type AnyEndpoint, endpoint } from '../../http/endpoint.js';
import type { RateCounter } from '../../limits/rate-counter.js';
import { rules } from '../../validation/fields.js';
import { signedInExample, signedInResponse, userExample, userResponse } from '../users/view.js';
import { credentialFields, requiredCredentialsIn } from './credentials.js';
import { reauthProof, reauthRules } from './reauth-rules.js';
import type { ProvidersService } from './service.js';

function userAgent(request: FastifyRequest): string | undefined {
  return request.headers['user-agent'];
}

/**
 * Login and link routes exist only for configured providers (any other is a natural 404); unlink exists for
 * every known provider, so a link to a provider the deployment has since switched off can still be removed.
 */
export function providerEndpoints(
  providers: ProvidersService,
  names: { configured: string[]; known: string[] },
  /** The per-IP login limit, shared with email login: an attacker gains nothing by switching routes. */
  loginLimit: RateCounter,
): AnyEndpoint[] {
  const endpoints: AnyEndpoint[] = [];
  for (const name of names.configured) {
    endpoints.push(
      endpoint({
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
      }),
      endpoint({
        method: 'POST',
        path: `/user/providers/${name}/link`,
        summary: `Link a ${name} identity to the signed-in user`,
        tag: 'user',
        auth: 'required',
        description:
          'Needs re-authentication: `current_password`, or for a password-less account the credentials of ' +
          'a provider already linked to it.',
        errors: [401, 502],
        rules: rules({
          ...reauthRules(names.configured, name),
          ...credentialFields(name, { use: 'identity' }),
        }),
        response: userResponse,
        example: { user: { ...userExample, providers: [name] } },
        handle: ({ params, auth }) =>
          providers.link(
            auth,
            requiredCredentialsIn(params, name),
            reauthProof(
              params,
              names.configured.filter((other) => other !== name),
            ),
          ),
      }),
    );
  }
  for (const name of names.known) {
    endpoints.push(
      endpoint({
        method: 'POST',
        path: `/user/providers/${name}/unlink`,
        summary: `Unlink ${name} from the signed-in user`,
        description:
          'Needs re-authentication: `current_password`, or for a password-less account the credentials of ' +
          'a provider linked to it. Refused (422) when it is the last way to sign in: no password and no ' +
          'other provider.',
        tag: 'user',
        auth: 'required',
        errors: [401, 422, 502],
        rules: rules(reauthRules(names.configured)),
        response: userResponse,
        example: { user: userExample },
        handle: ({ params, auth }) => providers.unlink(auth, name, reauthProof(params, names.configured)),
      }),
    );
  }
  return endpoints;
}
