import { ProviderNotConfiguredError } from '../errors.js';
import type { EndpointInfo } from '../http/endpoint.js';
import { providerVariables } from '../providers/config.js';

/**
 * What a provider's login or link endpoint adds when the provider is known but not configured here: the
 * route still exists and is documented (the apps were built against every provider's routes), and answers
 * 503 provider_not_configured naming the variables to set, rather than a 404 that reads like a wrong URL.
 */
export function whenNotConfigured(
  name: string,
  configured: readonly string[],
): Pick<EndpointInfo, 'unavailable'> & { note: string } {
  if (configured.includes(name)) return { note: '' };
  const variables = providerVariables(name);
  return {
    unavailable: () => new ProviderNotConfiguredError(name, variables),
    note:
      ` Not configured on this deployment: answers 503 \`provider_not_configured\` (set ` +
      `${variables.userinfo.join(', ')}, or ${variables['id-token'].join(', ')}).`,
  };
}
