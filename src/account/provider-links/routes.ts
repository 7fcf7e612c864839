import { type AnyEndpoint, endpoint } from '../../http/endpoint.js';
import { credentialFields, requiredCredentialsIn } from '../../modules/providers/credentials.js';
import { userExample, userResponse } from '../../modules/users/view.js';
import { rules } from '../../validation/rule-list.js';
import { reauthProof, reauthRules } from '../reauth/rules.js';
import { clientInfo } from '../request-client.js';
import { whenNotConfigured } from '../unconfigured-provider.js';
import type { ProviderLinks } from './service.js';

/**
 * Linking a known provider `name`. `configured`: every configured provider name, whose credentials a
 * password-less account re-authenticates with; linking any other answers 503 provider_not_configured.
 */
export function providerLinkEndpoint(
  links: ProviderLinks,
  name: string,
  configured: readonly string[],
): AnyEndpoint {
  const { unavailable, note } = whenNotConfigured(name, configured);
  return endpoint({
    method: 'POST',
    path: `/user/providers/${name}/link`,
    summary: `Link a ${name} identity to the signed-in user`,
    tag: 'user',
    auth: 'required',
    description:
      'Needs re-authentication: `current_password`, or for a password-less account the credentials of ' +
      `a provider already linked to it.${note}`,
    errors: unavailable ? [401, 503] : [401, 502],
    unavailable,
    rules: rules({
      ...reauthRules(configured, name),
      ...credentialFields(name, { use: 'identity' }),
    }),
    response: userResponse,
    example: { user: { ...userExample, providers: [name] } },
    handle: ({ params, auth, request }) =>
      links.link(
        auth,
        requiredCredentialsIn(params, name),
        reauthProof(
          params,
          configured.filter((other) => other !== name),
        ),
        clientInfo(request),
      ),
  });
}

/**
 * Unlinking exists for every known provider, so a link to a provider the deployment has since switched off
 * can still be removed. `configured` as for providerLinkEndpoint.
 */
export function providerUnlinkEndpoint(
  links: ProviderLinks,
  name: string,
  configured: readonly string[],
): AnyEndpoint {
  return endpoint({
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
    rules: rules(reauthRules(configured)),
    response: userResponse,
    example: { user: userExample },
    handle: ({ params, auth, request }) =>
      links.unlink(auth, name, reauthProof(params, configured), clientInfo(request)),
  });
}
