import { type AnyEndpoint, endpoint } from '../../http/endpoint.js';
import type { RateCounter } from '../../limits/rate-counter.js';
import { signUpConsentFields } from '../../modules/consents/rules.js';
import { idempotencyKeyOf } from '../../modules/idempotency/key.js';
import { signedInExample, signedInResponse } from '../../modules/users/view.js';
import { clientInfo } from '../request-client.js';
import { type RegisterRuleOptions, registerRules } from './rules.js';
import type { SignUp } from './service.js';

/** `registerLimit`: sign-ups per IP (counted before the body is read). */
export function signUpEndpoints(
  signUp: SignUp,
  options: RegisterRuleOptions,
  registerLimit: RateCounter,
): AnyEndpoint[] {
  return [
    endpoint({
      method: 'POST',
      path: '/auth/register',
      summary: 'Register by email and password, or through an identity provider',
      description:
        'An optional `Idempotency-Key` header (16–255 characters of `A-Z a-z 0-9 _ -`) makes a retry with the ' +
        'same key, email and parameters answer what the first request answered, token included.',
      tag: 'auth',
      auth: 'none',
      limit: registerLimit,
      errors: [429, 502],
      rules: registerRules(options),
      response: signedInResponse,
      example: signedInExample,
      handle: ({ params, request }) =>
        signUp.register(params, clientInfo(request), {
          consentFields: signUpConsentFields(request.query, request.body),
          idempotencyKey: idempotencyKeyOf(request.headers),
        }),
    }),
  ];
}
