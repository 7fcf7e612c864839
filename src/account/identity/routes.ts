import { PORTONE_VARIABLES } from '../../config/identity.js';
import { IdentityVerificationNotConfiguredError } from '../../errors.js';
import { type AnyEndpoint, endpoint } from '../../http/endpoint.js';
import { t } from '../../http/response-schema.js';
import { string } from '../../validation/field-kinds.js';
import { rules } from '../../validation/rule-list.js';
import { clientInfo } from '../request-client.js';
import type { IdentityVerifications } from './service.js';

const verifyRules = rules({
  identity_verification_id: string()
    .required()
    .max(128)
    .describe(
      "The `identity_verification_id` from identity/start, once PortOne's SDK has finished with it " +
        '(`PortOne.requestIdentityVerification`).',
    ),
});

/** The signed-in user's identity verification through PortOne (docs/identity.md). */
export function identityEndpoints(identity: IdentityVerifications): AnyEndpoint[] {
  const unavailable = identity.configured
    ? undefined
    : () => new IdentityVerificationNotConfiguredError(PORTONE_VARIABLES);
  const note = identity.configured
    ? ''
    : ` Not configured on this deployment: answers 503 \`identity_verification_not_configured\` (set ${PORTONE_VARIABLES.join(', ')}).`;
  return [
    endpoint({
      method: 'POST',
      path: '/user/identity/start',
      summary: 'Start an identity verification (본인인증)',
      description:
        'Issues an `identity_verification_id` bound to the signed-in user, usable once within 30 minutes, with ' +
        "the store id and channel key to hand to PortOne's SDK (`PortOne.requestIdentityVerification`). " +
        `Counts on the per-user limit RATE_LIMIT_IDENTITY_VERIFICATION.${note}`,
      tag: 'user',
      auth: 'required',
      errors: unavailable ? [429, 503] : [429],
      unavailable,
      rules: rules({}),
      response: t.object({
        identity_verification_id: t.string(),
        store_id: t.string(),
        channel_key: t.string(),
      }),
      example: {
        identity_verification_id: 'identity-verification-019ab0c4-6a2e-7c1d-9b3f-2e8d7c6b5a49',
        store_id: 'store-4c2d1e0f-9a8b-4c7d-8e6f-5a4b3c2d1e0f',
        channel_key: 'channel-key-8f7e6d5c-4b3a-4291-8e7f-6d5c4b3a2918',
      },
      handle: ({ auth }) => identity.start(auth),
    }),
    endpoint({
      method: 'POST',
      path: '/user/identity/verify',
      summary: 'Finish an identity verification',
      description:
        'Asks PortOne about the id. Only a `VERIFIED` verification in this store, of an id issued to this ' +
        'user and not used before, verified within the last 30 minutes, counts: it stores the verification ' +
        'time, the birth date (replacing a declared one), whether the person is a foreigner and a keyed hash ' +
        'of the CI, never the CI, the phone number or the full name. `adult`: 19 or over in full years ' +
        '(Korean time). Anything else is a 422 on `identity_verification_id`; a person who already holds ' +
        'another account is the 409 `identity_in_use` (IDENTITY_ONE_ACCOUNT_PER_PERSON); PortOne unreachable ' +
        `or slower than PORTONE_TIMEOUT_MS is a 503.${note}`,
      tag: 'user',
      auth: 'required',
      errors: [409, 429, 503],
      unavailable,
      rules: verifyRules,
      response: t.object({
        identity: t.object({
          verified: t.literal(true),
          verified_at: t.dateTime(),
          birth_date: t.string(),
          adult: t.boolean(),
        }),
      }),
      example: {
        identity: {
          verified: true,
          verified_at: '2026-11-27T10:21:44.000Z',
          birth_date: '1998-04-17',
          adult: true,
        },
      },
      handle: ({ params, auth, request }) =>
        identity.verify(auth, params.identity_verification_id, clientInfo(request)),
    }),
  ];
}
