import { type AnyEndpoint, endpoint } from '../../http/endpoint.js';
import { rules } from '../../validation/fields.js';
import { userExample, userResponse } from '../users/view.js';
import { credentialFields, requiredCredentialsIn } from './credentials.js';
import { reauthProof, reauthRules } from './reauth-rules.js';
import type { ProvidersService } from './service.js';

/**
 * Link routes exist only for configured providers (any other is a natural 404); unlink exists for every
 * known provider, so a link to a provider the deployment has since switched off can still be removed.
 */
export function providerEndpoints(
  providers: ProvidersService,
  names: { configured: string[]; known: string[] },
  /**
   * The provider's login route (the sign-in's own): listed just before its link route, the order the API
   * document has always had.
   */
  loginEndpoint: (name: string) => AnyEndpoint,
): AnyEndpoint[] {
  const endpoints: AnyEndpoint[] = [];
  for (const name of names.configured) {
    endpoints.push(
      loginEndpoint(name),
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
