import { type AnyEndpoint, endpoint } from '../../http/endpoint.js';
import { t } from '../../http/response-schema.js';
import type { RateCounter } from '../../limits/rate-counter.js';
import { credentialFields, requiredCredentialsIn } from '../../modules/providers/credentials.js';
import { signedInExample, signedInResponse } from '../../modules/users/view.js';
import { rules } from '../../validation/rule-list.js';
import { clientInfo } from '../request-client.js';
import { whenNotConfigured } from '../unconfigured-provider.js';
import { answered } from './admission.js';
import { type AccountByEmail, loginEmailRules } from './rules.js';
import type { SignIn } from './service.js';

/**
 * Email login and logout. `loginLimit`: logins per IP, shared with the provider logins (an attacker gains
 * nothing by switching routes); the per-account login failures are counted by the service.
 */
export function signInEndpoints(
  signIn: SignIn,
  loginLimit: RateCounter,
  /** The login's email rule hands on the account this finds. */
  accountByEmail: AccountByEmail,
): AnyEndpoint[] {
  return [
    endpoint({
      method: 'POST',
      path: '/auth/login/email',
      summary: 'Log in by email and password',
      description: 'Every login issues a new token (one per device).',
      tag: 'auth',
      auth: 'none',
      limit: loginLimit,
      errors: [401, 429],
      rules: loginEmailRules(accountByEmail),
      response: signedInResponse,
      example: signedInExample,
      // The email rule hands on the account it found (its address as stored: the same lower-cased).
      handle: async ({ params, request }) =>
        answered(await signIn.login(params.email.email, params.password, clientInfo(request), params.email)),
    }),
    endpoint({
      method: 'POST',
      path: '/auth/logout',
      // Open to a child awaiting a guardian's consent (docs/identity.md).
      beforeGuardianConsent: true,
      summary: 'Revoke the presented token',
      tag: 'auth',
      auth: 'required',
      rules: rules({}),
      response: t.object({ status: t.literal('logged_out') }),
      example: { status: 'logged_out' },
      handle: async ({ auth }) => {
        await signIn.logout(auth);
        return { status: 'logged_out' as const };
      },
    }),
  ];
}

/**
 * Login with the known identity provider `name`; `loginLimit` as above. `configured`: the configured provider
 * names; for any other the route still exists and answers 503 provider_not_configured.
 */
export function providerSignInEndpoint(
  signIn: SignIn,
  name: string,
  loginLimit: RateCounter,
  configured: readonly string[],
): AnyEndpoint {
  const { unavailable, note } = whenNotConfigured(name, configured);
  return endpoint({
    method: 'POST',
    path: `/auth/login/${name}`,
    summary: `Log in with ${name}`,
    description: `The ${name} token is verified with ${name}. An identity with no account is a 401 not_registered.${note}`,
    tag: 'auth',
    auth: 'none',
    limit: loginLimit,
    errors: unavailable ? [429, 503] : [401, 429, 502],
    unavailable,
    rules: rules(credentialFields(name, { use: 'identity' })),
    response: signedInResponse,
    example: { user: { ...signedInExample.user, providers: [name], has_password: false } },
    handle: async ({ params, request }) =>
      answered(await signIn.loginWithProvider(requiredCredentialsIn(params, name), clientInfo(request))),
  });
}
