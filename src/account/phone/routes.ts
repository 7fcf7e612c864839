import { type AnyEndpoint, endpoint } from '../../http/endpoint.js';
import { t } from '../../http/response-schema.js';
import { userExample, userResponse } from '../../modules/users/view.js';
import { reauthProof } from '../reauth/rules.js';
import { clientInfo } from '../request-client.js';
import { userPhoneRemoveRules, userPhoneRules, userPhoneVerifyRules } from './rules.js';
import type { PhoneNumberService } from './service.js';

const REAUTH =
  'Needs re-authentication (`current_password`, a linked provider, a passkey, or a window user/reauth opened).';

/** `providers`: the configured provider names, whose credentials a password-less account re-authenticates with. */
export function phoneEndpoints(phones: PhoneNumberService, providers: readonly string[]): AnyEndpoint[] {
  return [
    endpoint({
      method: 'POST',
      path: '/user/phone',
      summary: 'Add or change the mobile number, and text it a code',
      description:
        "The number (normalised to E.164) becomes the account's, unverified, and gets a 6-digit code by SMS " +
        `(10 minutes, 5 tries). ${REAUTH} 409 \`phone_in_use\` when another account verified it; 429 past the ` +
        'SMS limits; 503 `sms_not_configured` without SOLAPI.',
      tag: 'user',
      auth: 'required',
      errors: [409, 429, 503],
      rules: userPhoneRules(providers),
      response: t.object({ status: t.literal('sent'), phone: t.string() }),
      example: { status: 'sent', phone: '+821012345678' },
      handle: async ({ params, auth, request }) =>
        phones.add(auth, params.phone, reauthProof(params, providers), clientInfo(request)),
    }),
    endpoint({
      method: 'POST',
      path: '/user/phone/verify',
      summary: 'Verify the mobile number with its texted code',
      description:
        'The number then signs in by SMS code (auth/phone-code). A wrong, used or expired code is a 422 on ' +
        '`code`; 409 `phone_in_use` when another account verified the number first.',
      tag: 'user',
      auth: 'required',
      errors: [409],
      rules: userPhoneVerifyRules,
      response: userResponse,
      example: { user: { ...userExample, phone: '+821012345678', phone_verified: true } },
      handle: async ({ params, auth, request }) => ({
        user: await phones.verify(auth, params.code, clientInfo(request)),
      }),
    }),
    endpoint({
      method: 'POST',
      path: '/user/phone/remove',
      summary: 'Remove the mobile number',
      description: `It no longer signs in. ${REAUTH}`,
      tag: 'user',
      auth: 'required',
      rules: userPhoneRemoveRules(providers),
      response: userResponse,
      example: { user: userExample },
      handle: async ({ params, auth, request }) => ({
        user: await phones.remove(auth, reauthProof(params, providers), clientInfo(request)),
      }),
    }),
  ];
}
