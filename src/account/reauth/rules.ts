import { credentialFieldsOf, offeredCredentials } from '../../modules/providers/credentials.js';
import { string } from '../../validation/field-kinds.js';
import type { ReauthProof } from './service.js';

/** `current_password` as every re-authenticated endpoint takes it (checked by Reauthentication, not here). */
export const currentPasswordField = string()
  .max(1024)
  .describe(
    'The present password: the proof of identity for this change when the account has a password. ' +
      'A password-less account sends the `<provider>_user_id` and `<provider>_access_token` of a provider ' +
      'already linked to it instead.',
  );

/**
 * The optional proof fields of a re-authenticated endpoint: `current_password`, and `<p>_user_id` +
 * `<p>_access_token` for each configured provider but `except` (whose fields the link endpoint already takes
 * for the identity being linked).
 */
export function reauthRules(providers: readonly string[], except?: string) {
  return {
    current_password: currentPasswordField,
    ...credentialFieldsOf(
      providers.filter((provider) => provider !== except),
      { use: 'reauth' },
    ),
  };
}

/** Collects the proof a validated request carries; a provider counts only when both of its fields came. */
export function reauthProof(params: Record<string, unknown>, providers: readonly string[]): ReauthProof {
  const currentPassword = params.current_password;
  return {
    currentPassword: typeof currentPassword === 'string' ? currentPassword : undefined,
    credentials: offeredCredentials(params, providers),
  };
}
