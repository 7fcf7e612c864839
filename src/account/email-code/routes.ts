import { type AnyEndpoint, endpoint } from '../../http/endpoint.js';
import { t } from '../../http/response-schema.js';
import type { RateCounter } from '../../limits/rate-counter.js';
import { signedInExample, signedInResponse } from '../../modules/users/view.js';
import { clientInfo } from '../request-client.js';
import { answered } from '../sign-in/admission.js';
import { emailCodeRules, emailCodeVerifyRules } from './rules.js';
import type { EmailCodeSignIn } from './service.js';

/** `requestLimit`: code requests per IP; `loginLimit`: logins per IP, shared with every other login. */
export function emailCodeEndpoints(
  emailCodes: EmailCodeSignIn,
  limits: { requestLimit: RateCounter; loginLimit: RateCounter },
): AnyEndpoint[] {
  return [
    endpoint({
      method: 'POST',
      path: '/auth/email-code',
      summary: 'Mail a sign-in (or sign-up) code and link',
      description:
        'Always `{"status":"sent"}`, whether or not an account has this address (it never says which). A ' +
        '`login` code goes only to an account, a `register` code only to an address no account has. The code ' +
        '(6 digits) and the link work once, for 10 minutes; a fifth wrong code ends both; a new request ends ' +
        'the previous code. Throttled per IP and per address.',
      tag: 'auth',
      auth: 'none',
      limit: limits.requestLimit,
      errors: [429],
      rules: emailCodeRules,
      response: t.object({ status: t.literal('sent') }),
      example: { status: 'sent' },
      handle: async ({ params, request }) => {
        await emailCodes.request(params.email, params.purpose as 'login' | 'register', clientInfo(request));
        return { status: 'sent' as const };
      },
    }),
    endpoint({
      method: 'POST',
      path: '/auth/email-code/verify',
      summary: 'Log in with a mailed code, or with its link',
      description:
        '`email` and `code`, or `token` (from the link). Answers like login: `{"user": {…, "api_token"}}`; ' +
        "a wrong, used or expired code is the login's 401 `authentication_failed`, counted like a wrong " +
        'password. An account with a second factor gets 401 `second_factor_required`; a disabled one 401 ' +
        '`account_disabled`; one scheduled for deletion 409. The new session may set a first password at ' +
        'once (its re-authentication window is open).',
      tag: 'auth',
      auth: 'none',
      limit: limits.loginLimit,
      errors: [401, 409, 429],
      rules: emailCodeVerifyRules,
      response: signedInResponse,
      example: { user: { ...signedInExample.user, email_verified: true } },
      handle: async ({ params, request }) => answered(await emailCodes.verify(params, clientInfo(request))),
    }),
  ];
}
