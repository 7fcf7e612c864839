import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/server';
import { type AnyAdminEndpoint, adminEndpoint } from '../../http/admin-endpoint.js';
import { t } from '../../http/response-schema.js';
import type { RateCounter } from '../../limits/rate-counter.js';
import { string } from '../../validation/field-kinds.js';
import { rules } from '../../validation/rule-list.js';
import {
  creationOptionsExample,
  creationOptionsShape,
  requestOptionsShape,
  signInOptionsExample,
} from '../passkeys/examples.js';
import { assertionResponseField, challengeIdField, registrationResponseField } from '../passkeys/rules.js';
import { newPasswordField } from '../users/rules.js';
import { sessionStarted, signedInExample, signedInShape, tokenField } from './answers.js';
import type { StaffEnrollment } from './enrollment.js';
import type { StaffSignIn } from './sign-in.js';

const CHALLENGE_ID = '019ad0c4-7a1b-7c2d-8e3f-4a5b6c7d8e9f';
/** 409 where the relying party is an IP address: no browser makes a passkey there. */
const UNAVAILABLE = 409;

/**
 * A passkey as a staff member's second factor, instead of an authenticator app: enrolled from the link
 * (options for the link's member, then the password and the new credential together), then the password and
 * the passkey at every sign-in. `loginLimit`: per IP, as the code's enrollment and sign-in.
 */
export function staffPasskeyEndpoints(
  signIn: StaffSignIn,
  enrollment: StaffEnrollment,
  loginLimit: RateCounter,
): AnyAdminEndpoint[] {
  return [
    adminEndpoint({
      method: 'POST',
      path: '/enrollment/passkey/options',
      summary: 'Options to create the passkey an enrollment link enrolls (instead of an authenticator app)',
      description: 'A challenge for `navigator.credentials.create()`, valid for 5 minutes and once.',
      tag: 'staff',
      auth: 'none',
      limit: loginLimit,
      errors: [UNAVAILABLE, 410],
      rules: rules({ token: tokenField }),
      response: t.object({ options: creationOptionsShape, challenge_id: t.string() }),
      example: { options: creationOptionsExample, challenge_id: CHALLENGE_ID },
      handle: async ({ params }) =>
        (await enrollment.passkeyEnrollment(params.token)) as {
          options: PublicKeyCredentialCreationOptionsJSON;
          challenge_id: string;
        },
    }),
    adminEndpoint({
      method: 'POST',
      path: '/enrollment/passkey',
      summary: 'Completes an enrollment: the password, and the passkey created with those options',
      description:
        'The link then answers 410 enrollment_used. A response that proves nothing (another challenge, a ' +
        'used or expired one, another origin) is a 422 on `response`.',
      tag: 'staff',
      auth: 'none',
      limit: loginLimit,
      errors: [UNAVAILABLE, 410],
      rules: rules({
        token: tokenField,
        password: newPasswordField.required(),
        challenge_id: challengeIdField.required(),
        response: registrationResponseField,
      }),
      response: t.object({ status: t.literal('enrolled') }),
      example: { status: 'enrolled' },
      handle: async ({ params }) => {
        await enrollment.enrollPasskey(params.token, params.password, params.challenge_id, params.response);
        return { status: 'enrolled' as const };
      },
    }),
    adminEndpoint({
      method: 'POST',
      path: '/auth/login/passkey/options',
      summary: 'A challenge for a staff sign-in with a passkey',
      description:
        'Names no credential (nothing tells who is staff): the authenticator offers its passkeys for this ' +
        'site. Valid for 5 minutes and once.',
      tag: 'staff',
      auth: 'none',
      limit: loginLimit,
      errors: [UNAVAILABLE],
      rules: rules({}),
      response: t.object({ options: requestOptionsShape, challenge_id: t.string() }),
      example: { options: signInOptionsExample, challenge_id: CHALLENGE_ID },
      handle: async () =>
        (await signIn.passkeySignInOptions()) as {
          options: PublicKeyCredentialRequestOptionsJSON;
          challenge_id: string;
        },
    }),
    adminEndpoint({
      method: 'POST',
      path: '/auth/login/passkey',
      summary: 'Staff sign-in: email, password and the passkey, every time',
      description:
        'Sets the staff session cookie (Path=/admin). A wrong password or a passkey answer that proves ' +
        'nothing counts as a wrong code does: five in a row lock the account.',
      tag: 'staff',
      auth: 'none',
      limit: loginLimit,
      rules: rules({
        email: string().required().max(255),
        password: string().required().max(1024),
        challenge_id: challengeIdField.required(),
        response: assertionResponseField.required(),
      }),
      response: signedInShape,
      example: signedInExample,
      handle: async ({ params, request, reply }) => {
        const response = params.response as AuthenticationResponseJSON;
        const session = await signIn.signIn({
          email: params.email,
          password: params.password,
          factor: { challengeId: params.challenge_id, response },
          clientAddress: request.ip,
        });
        return sessionStarted(request, reply, session);
      },
    }),
  ];
}
