import { string } from '../../validation/fields.js';
import { PROVIDER_TOKEN_PATTERN } from '../../validation/patterns.js';
import type { ReauthProof } from './reauth-service.js';
import { accessTokenField, type ProviderCredentials, userIdField } from './service.js';

/** `current_password` as every re-authenticated endpoint takes it (checked by ReauthService, not here). */
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
  const fields: Record<string, typeof currentPasswordField> = { current_password: currentPasswordField };
  for (const provider of providers) {
    if (provider === except) continue;
    fields[userIdField(provider)] = string()
      .max(255)
      .describe(`Re-authentication: the linked ${provider} identity (password-less accounts).`);
    fields[accessTokenField(provider)] = string()
      .max(8192)
      .pattern(PROVIDER_TOKEN_PATTERN)
      .describe(
        `Re-authentication: a fresh ${provider} token for the linked identity; verified, never stored.`,
      );
  }
  return fields;
}

/** Collects the proof a validated request carries; a provider counts only when both of its fields came. */
export function reauthProof(params: Record<string, unknown>, providers: readonly string[]): ReauthProof {
  const credentials: ProviderCredentials[] = [];
  for (const provider of providers) {
    const userId = params[userIdField(provider)];
    const accessToken = params[accessTokenField(provider)];
    if (typeof userId === 'string' && typeof accessToken === 'string') {
      credentials.push({ provider, userId, accessToken });
    }
  }
  const currentPassword = params.current_password;
  return { currentPassword: typeof currentPassword === 'string' ? currentPassword : undefined, credentials };
}
