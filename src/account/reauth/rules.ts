import { assertionResponseField, challengeIdField } from '../../modules/passkeys/rules.js';
import { credentialFieldsOf, offeredCredentials } from '../../modules/providers/credentials.js';
import { string } from '../../validation/field-kinds.js';
import type { PasskeyProof, ReauthProof } from './service.js';

/** `current_password` as every re-authenticated endpoint takes it (checked by Reauthentication, not here). */
export const currentPasswordField = string()
  .max(1024)
  .describe(
    'The present password: the proof of identity for this change when the account has a password. ' +
      'A password-less account sends the `<provider>_user_id` and `<provider>_access_token` of a provider ' +
      'already linked to it instead; any account with a passkey may send `passkey_challenge_id` and ' +
      '`passkey_response` instead. None of them is needed within a window user/reauth opened for this token.',
  );

/**
 * The optional proof fields of a re-authenticated endpoint: `current_password`, and `<p>_user_id` +
 * `<p>_access_token` for each configured provider but `except` (whose fields the link endpoint already takes
 * for the identity being linked).
 */
export function reauthRules(providers: readonly string[], except?: string) {
  return {
    current_password: currentPasswordField,
    passkey_challenge_id: challengeIdField.describe(
      'With `passkey_response`: the `challenge_id` from user/passkeys/reauth-options.',
    ),
    passkey_response: assertionResponseField.describe(
      'With `passkey_challenge_id`: the AuthenticationResponseJSON answering the options of ' +
        'user/passkeys/reauth-options, a proof of identity in place of the password or a provider token.',
    ),
    ...credentialFieldsOf(
      providers.filter((provider) => provider !== except),
      { use: 'reauth' },
    ),
  };
}

/**
 * user/reauth's fields: the proof of every re-authenticated endpoint, and beside the password (or provider
 * token) an authenticator or recovery code, which makes it a proof of two factors (policy.ts).
 */
export function reauthWindowRules(providers: readonly string[]) {
  return {
    ...reauthRules(providers),
    code: string()
      .max(32)
      .describe(
        'With a second factor on: a 6-digit code of the authenticator app beside the password (or ' +
          'provider token), for a window that may also add or remove a way to sign in.',
      ),
    recovery_code: string()
      .max(64)
      .describe('Instead of `code`: one of the recovery codes (each works once).'),
  };
}

/** Collects the proof a validated request carries; a provider counts only when both of its fields came. */
export function reauthProof(params: Record<string, unknown>, providers: readonly string[]): ReauthProof {
  const currentPassword = params.current_password;
  const challengeId = params.passkey_challenge_id;
  const response = params.passkey_response as PasskeyProof['response'] | undefined;
  return {
    currentPassword: typeof currentPassword === 'string' ? currentPassword : undefined,
    credentials: offeredCredentials(params, providers),
    passkey:
      typeof challengeId === 'string' && response !== undefined ? { challengeId, response } : undefined,
  };
}

/** user/reauth's proof: reauthProof and the second factor's code. */
export function reauthWindowProof(
  params: Record<string, unknown>,
  providers: readonly string[],
): ReauthProof {
  const code = params.code;
  const recoveryCode = params.recovery_code;
  return {
    ...reauthProof(params, providers),
    secondFactor: {
      code: typeof code === 'string' ? code : undefined,
      recoveryCode: typeof recoveryCode === 'string' ? recoveryCode : undefined,
    },
  };
}
