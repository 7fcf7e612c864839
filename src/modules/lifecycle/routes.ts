import type { FastifyRequest } from 'fastify';
import { type AnyEndpoint, endpoint } from '../../http/endpoint.js';
import { t } from '../../http/response-schema.js';
import type { RateCounter } from '../../limits/rate-counter.js';
import { rules } from '../../validation/fields.js';
import { preferredLocale } from '../../validation/messages.js';
import { signedInExample, signedInResponse } from '../users/view.js';
import type { PasswordResetService, ResetClient } from './password-reset-service.js';
import { forgotPasswordRules, resetPasswordRules, verifyEmailRules } from './rules.js';
import type { EmailVerificationService } from './verification-service.js';

/** Who asks, and in which language their mail should be. */
export function resetClient(request: FastifyRequest): ResetClient {
  return {
    userAgent: request.headers['user-agent'],
    ip: request.ip,
    locale: preferredLocale(request.headers['accept-language']),
  };
}

export function lifecycleEndpoints(
  verification: EmailVerificationService,
  reset: PasswordResetService,
  limits: { forgotIp: RateCounter },
): AnyEndpoint[] {
  return [
    endpoint({
      method: 'POST',
      path: '/auth/email/verify',
      summary: 'Verify an email address with the token from the mailed link',
      description:
        'Marks the address verified and answers `{"status":"verified"}`. A used, expired or unknown token, or ' +
        'one mailed to an address the account no longer has, is a 422 on `token`.',
      tag: 'auth',
      auth: 'none',
      rules: verifyEmailRules,
      response: t.object({ status: t.literal('verified') }),
      example: { status: 'verified' },
      handle: async ({ params }) => {
        await verification.verify(params.token);
        return { status: 'verified' as const };
      },
    }),
    endpoint({
      method: 'POST',
      path: '/user/email/resend',
      summary: 'Mail a new verification link (the previous one stops working)',
      description:
        'Answers `{"status":"sent"}`, or `{"status":"already_verified"}` without sending. Throttled per user ' +
        '(RATE_LIMIT_EMAIL_RESEND).',
      tag: 'user',
      auth: 'required',
      errors: [429],
      rules: rules({}),
      response: t.object({ status: t.enum(['sent', 'already_verified']) }),
      example: { status: 'sent' },
      handle: async ({ auth, request }) => ({
        status: await verification.resend(auth, resetClient(request).locale),
      }),
    }),
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
        'like login: `{"user": {…, "api_token"}}`. The token works once.',
      tag: 'auth',
      auth: 'none',
      rules: resetPasswordRules,
      response: signedInResponse,
      example: { user: { ...signedInExample.user, email_verified: true } },
      handle: ({ params, request }) => reset.reset(params.token, params.password, resetClient(request)),
    }),
  ];
}
