import type { FastifyRequest } from 'fastify';
import { type AnyEndpoint, endpoint } from '../../http/endpoint.js';
import { t } from '../../http/response-schema.js';
import type { RateCounter } from '../../limits/rate-counter.js';
import { signedInExample, signedInResponse } from '../../modules/users/view.js';
import { preferredLocale } from '../../validation/messages.js';
import { answered } from '../sign-in/admission.js';
import { forgotPasswordRules, resetPasswordRules } from './rules.js';
import type { PasswordResetService, ResetClient } from './service.js';

/** Who asks, and in which language their mail should be. */
function resetClient(request: FastifyRequest): ResetClient {
  return {
    userAgent: request.headers['user-agent'],
    ip: request.ip,
    locale: preferredLocale(request.headers['accept-language']),
  };
}

export function passwordResetEndpoints(
  reset: PasswordResetService,
  limits: { forgotIp: RateCounter },
): AnyEndpoint[] {
  return [
    endpoint({
      method: 'POST',
      path: '/auth/password/forgot',
      summary: 'Mail a password-reset link',
      description:
        'Always `{"status":"sent"}`, whether or not an account has this address (it never says which). ' +
        'Throttled per IP and per address. A new request makes the previous link stop working.',
      tag: 'auth',
      auth: 'none',
      limit: limits.forgotIp,
      errors: [429],
      rules: forgotPasswordRules,
      response: t.object({ status: t.literal('sent') }),
      example: { status: 'sent' },
      handle: async ({ params, request }) => {
        await reset.forgot(params.email, resetClient(request));
        return { status: 'sent' as const };
      },
    }),
    endpoint({
      method: 'POST',
      path: '/auth/password/reset',
      summary: 'Set a new password with the token from the mailed link',
      description:
        'Same password rules as registration. Marks the email verified, signs out every session and answers ' +
        'like login: `{"user": {…, "api_token"}}`. The token works once. For an account with a second factor ' +
        "on, the password is set and the answer is the login's 401 `second_factor_required` (the factor stays on).",
      tag: 'auth',
      auth: 'none',
      errors: [401],
      rules: resetPasswordRules,
      response: signedInResponse,
      example: { user: { ...signedInExample.user, email_verified: true } },
      handle: async ({ params, request }) =>
        answered(await reset.reset(params.token, params.password, resetClient(request))),
    }),
  ];
}
