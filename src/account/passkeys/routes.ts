import { type AnyEndpoint, endpoint } from '../../http/endpoint.js';
import { t } from '../../http/response-schema.js';
import type { RateCounter } from '../../limits/rate-counter.js';
import {
  creationOptionsExample,
  creationOptionsShape,
  passkeyExample,
  passkeyShape,
  reauthOptionsExample,
  requestOptionsShape,
  signInOptionsExample,
} from '../../modules/passkeys/examples.js';
import {
  assertionResponseField,
  challengeIdField,
  passkeyNameField,
  registrationResponseField,
} from '../../modules/passkeys/rules.js';
import { signedInExample, signedInResponse } from '../../modules/users/view.js';
import { string } from '../../validation/field-kinds.js';
import { rules } from '../../validation/rule-list.js';
import { reauthProof, reauthRules } from '../reauth/rules.js';
import { clientInfo } from '../request-client.js';
import { answered } from '../sign-in/admission.js';
import type { PasskeyManagement } from './management.js';
import type { PasskeySignIn } from './sign-in.js';

const REAUTH =
  'Needs re-authentication: `current_password`, the credentials of a linked provider (a password-less ' +
  'account), or a passkey assertion (`passkey_challenge_id` + `passkey_response`, from ' +
  'user/passkeys/reauth-options).';

const idRule = string().required().describe('The `id` of the passkey, from user/passkeys.');

/**
 * The ceremonies' refusal on a deployment where passkeys cannot work (an IP-address relying party): set, every
 * ceremony answers it, and its status is documented.
 */
export interface PasskeyCeremonies {
  unavailable?: (() => Error) | undefined;
}

const refusal = ({ unavailable }: PasskeyCeremonies, errors: number[]) => ({
  unavailable,
  errors: unavailable ? [...new Set([...errors, 409])].sort((a, b) => a - b) : errors,
});

/**
 * Signing in with a passkey. `loginLimit`: logins per IP, shared with the other logins; the options count on
 * it too, so nobody can fill the challenge table from one address.
 */
export function passkeySignInEndpoints(
  signIn: PasskeySignIn,
  loginLimit: RateCounter,
  ceremonies: PasskeyCeremonies = {},
): AnyEndpoint[] {
  return [
    endpoint({
      method: 'POST',
      path: '/auth/login/passkey/options',
      summary: 'Start a passkey sign-in',
      description:
        'A challenge for `navigator.credentials.get()` (discoverable credentials: no account named, the ' +
        'authenticator offers its passkeys), valid for 5 minutes and once, and its `challenge_id`.',
      tag: 'auth',
      auth: 'none',
      limit: loginLimit,
      ...refusal(ceremonies, [429]),
      rules: rules({}),
      response: t.object({ options: requestOptionsShape, challenge_id: t.string() }),
      example: { options: signInOptionsExample, challenge_id: '019ab0c5-3c4d-7e5f-8a6b-7c8d9e0f1a2b' },
      handle: () => signIn.options(),
    }),
    endpoint({
      method: 'POST',
      path: '/auth/login/passkey',
      summary: 'Sign in with a passkey',
      description:
        'JSON body: `challenge_id` and the `response` of `navigator.credentials.get()`. Issues a new token ' +
        'like every login. An unknown or foreign credential, a wrong signature, a used or expired challenge ' +
        'or a signature counter that went back is the 401 `authentication_failed`. A passkey is two factors: ' +
        'no second-factor step follows, and a locked authenticator is unlocked. A disabled account is the ' +
        '401 `account_disabled`, one whose deletion is scheduled the 409 `deletion_scheduled`, as at login.',
      tag: 'auth',
      auth: 'none',
      limit: loginLimit,
      ...refusal(ceremonies, [401, 409, 429]),
      rules: rules({
        challenge_id: challengeIdField.required(),
        response: assertionResponseField.required(),
      }),
      response: signedInResponse,
      example: signedInExample,
      handle: async ({ params, request }) =>
        answered(await signIn.login(params.challenge_id, params.response, clientInfo(request))),
    }),
  ];
}

/** `providers`: the configured provider names, whose credentials a password-less account re-authenticates with. */
export function passkeyEndpoints(
  passkeys: PasskeyManagement,
  providers: readonly string[],
  ceremonies: PasskeyCeremonies = {},
): AnyEndpoint[] {
  return [
    endpoint({
      method: 'GET',
      path: '/user/passkeys',
      summary: "The signed-in user's passkeys",
      description: 'Oldest first: id, name, created_at, last_used_at. Nothing of the key itself.',
      tag: 'user',
      auth: 'required',
      rules: rules({}),
      response: t.object({ passkeys: t.array(passkeyShape) }),
      example: { passkeys: [passkeyExample] },
      handle: ({ auth }) => passkeys.list(auth),
    }),
    endpoint({
      method: 'POST',
      path: '/user/passkeys/options',
      summary: 'Start adding a passkey',
      description:
        `Options for \`navigator.credentials.create()\`, valid for 5 minutes and once. ${REAUTH} The ` +
        "user's passkeys are excluded, so an authenticator never makes a second one for the account.",
      tag: 'user',
      auth: 'required',
      ...refusal(ceremonies, [429, 502]),
      rules: rules(reauthRules(providers)),
      response: t.object({ options: creationOptionsShape }),
      example: { options: creationOptionsExample },
      handle: ({ params, auth }) => passkeys.registrationOptions(auth, reauthProof(params, providers)),
    }),
    endpoint({
      method: 'POST',
      path: '/user/passkeys/add',
      summary: 'Add a passkey',
      description:
        'JSON body: the `response` of `navigator.credentials.create()` with the options of ' +
        'user/passkeys/options, and an optional `name` (default: the browser and system of the user agent).',
      tag: 'user',
      auth: 'required',
      ...refusal(ceremonies, []),
      rules: rules({ response: registrationResponseField, name: passkeyNameField }),
      response: t.object({ passkey: passkeyShape }),
      example: { passkey: passkeyExample },
      handle: ({ params, auth, request }) =>
        passkeys.add(auth, params.response, params.name, clientInfo(request)),
    }),
    endpoint({
      method: 'POST',
      path: '/user/passkeys/reauth-options',
      // Open to a child awaiting a guardian's consent (docs/identity.md).
      beforeGuardianConsent: true,
      summary: 'A passkey challenge to re-authenticate with',
      description:
        "Options for `navigator.credentials.get()` naming the user's passkeys, valid for 5 minutes and " +
        'once, and its `challenge_id`: send the answer as `passkey_response` with `passkey_challenge_id` ' +
        'to any endpoint that needs re-authentication.',
      tag: 'user',
      auth: 'required',
      ...refusal(ceremonies, []),
      rules: rules({}),
      response: t.object({ options: requestOptionsShape, challenge_id: t.string() }),
      example: { options: reauthOptionsExample, challenge_id: '019ab0c5-3c4d-7e5f-8a6b-7c8d9e0f1a2b' },
      handle: ({ auth }) => passkeys.reauthOptions(auth),
    }),
    endpoint({
      method: 'POST',
      path: '/user/passkeys/:id/rename',
      summary: 'Rename one of the signed-in user’s passkeys',
      description: 'Only the user’s own passkeys; any other id is a 404.',
      tag: 'user',
      auth: 'required',
      errors: [404],
      rules: rules({ id: idRule, name: passkeyNameField.required() }),
      response: t.object({ passkey: passkeyShape }),
      example: { passkey: { ...passkeyExample, name: '민지의 노트북' } },
      handle: ({ params, auth, request }) =>
        passkeys.rename(auth, params.id, params.name, clientInfo(request)),
    }),
    endpoint({
      method: 'POST',
      path: '/user/passkeys/:id/remove',
      summary: 'Remove one of the signed-in user’s passkeys',
      description:
        `${REAUTH} Only the user’s own passkeys; any other id is a 404. Refused (422 on \`passkey\`) when ` +
        'it is the last way to sign in: no password, no linked provider and no other passkey.',
      tag: 'user',
      auth: 'required',
      errors: [404, 429, 502],
      rules: rules({ id: idRule, ...reauthRules(providers) }),
      response: t.object({ removed: t.literal(true) }),
      example: { removed: true },
      handle: ({ params, auth, request }) =>
        passkeys.remove(auth, params.id, reauthProof(params, providers), clientInfo(request)),
    }),
  ];
}
