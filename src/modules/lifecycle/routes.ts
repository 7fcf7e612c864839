import { type AnyEndpoint, endpoint } from '../../http/endpoint.js';
import { t } from '../../http/response-schema.js';
import { preferredLocale } from '../../validation/messages.js';
import { rules } from '../../validation/rule-list.js';
import { verifyEmailRules } from './rules.js';
import type { EmailVerificationService } from './verification-service.js';

export function emailVerificationEndpoints(verification: EmailVerificationService): AnyEndpoint[] {
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
      handle: async ({ params, request }) => {
        await verification.verify(params.token, { ip: request.ip, userAgent: request.headers['user-agent'] });
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
        status: await verification.resend(auth, preferredLocale(request.headers['accept-language'])),
      }),
    }),
  ];
}
