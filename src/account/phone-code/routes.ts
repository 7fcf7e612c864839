import { type AnyEndpoint, endpoint } from '../../http/endpoint.js';
import { t } from '../../http/response-schema.js';
import type { RateCounter } from '../../limits/rate-counter.js';
import { signedInExample, signedInResponse } from '../../modules/users/view.js';
import { phoneCodeRules, phoneCodeVerifyRules } from '../phone/rules.js';
import { clientInfo } from '../request-client.js';
import { answered } from '../sign-in/admission.js';
import type { PhoneCodeSignIn } from './service.js';

/** `loginLimit`: logins per IP, shared with every other login. */
export function phoneCodeEndpoints(phoneCodes: PhoneCodeSignIn, loginLimit: RateCounter): AnyEndpoint[] {
  return [
    endpoint({
      method: 'POST',
      path: '/auth/phone-code',
      summary: 'Text a sign-in code to a verified mobile number',
      description:
        'Always `{"status":"sent"}` for a mobile number of an allowed country, whether or not an account ' +
        'verified it (it never says which); the code (6 digits) works once, for 10 minutes, 5 tries. 422 on ' +
        '`phone` for a number that is not a mobile number of `SMS_ALLOWED_COUNTRIES`; 429 past the SMS limits ' +
        '(per number, per client address, per number block, per day); 503 `sms_not_configured` without SOLAPI.',
      tag: 'auth',
      auth: 'none',
      errors: [429, 503],
      rules: phoneCodeRules,
      response: t.object({ status: t.literal('sent') }),
      example: { status: 'sent' },
      handle: async ({ params, request }) => {
        await phoneCodes.request(params.phone, clientInfo(request));
        return { status: 'sent' as const };
      },
    }),
    endpoint({
      method: 'POST',
      path: '/auth/phone-code/verify',
      summary: 'Log in with a texted code',
      description:
        'Answers like login: `{"user": {…, "api_token"}}`; a wrong, used or expired code is the login\'s 401 ' +
        '`authentication_failed`, counted like a wrong password. A second factor, a disabled account or a ' +
        'scheduled deletion are answered as at login (401 `second_factor_required`, 401 `account_disabled`, 409).',
      tag: 'auth',
      auth: 'none',
      limit: loginLimit,
      errors: [401, 409, 429],
      rules: phoneCodeVerifyRules,
      response: signedInResponse,
      example: { user: { ...signedInExample.user, phone: '+821012345678', phone_verified: true } },
      handle: async ({ params, request }) => answered(await phoneCodes.verify(params, clientInfo(request))),
    }),
  ];
}
