import type { Field } from '../../validation/field.js';
import { string } from '../../validation/field-kinds.js';
import { PROVIDER_TOKEN_PATTERN } from '../../validation/patterns.js';

/**
 * The one vocabulary of provider credentials: how a request names an identity at a provider
 * (`<name>_user_id` and `<name>_access_token`), the rules of those two fields for each use, and how a
 * validated request's fields become credentials. Sign-up, login, linking and re-authentication all speak it.
 */

/** A provider's identity as the app claims it: `<name>_user_id` and `<name>_access_token`. */
export interface ProviderCredentials {
  provider: string;
  userId: string;
  accessToken: string;
}

export const userIdField = (provider: string): string => `${provider}_user_id`;
export const accessTokenField = (provider: string): string => `${provider}_access_token`;

/** Why a request carries the credentials: each use requires them differently and documents them so. */
export type CredentialUse =
  /** Login and link: the identity the request is about; both fields required. */
  | { use: 'identity' }
  /** Registration: required when `type` is this provider. */
  | { use: 'register' }
  /** Re-authentication of a password-less account: optional, a linked identity's fresh token. */
  | { use: 'reauth' };

/** The two fields of `provider` as `use` takes them (required ones are typed so). */
export function credentialFields(
  provider: string,
  use: { use: 'identity' },
): Record<string, Field<string, true>>;
export function credentialFields(provider: string, use: CredentialUse): Record<string, Field<string, false>>;
export function credentialFields(
  provider: string,
  { use }: CredentialUse,
): Record<string, Field<string, boolean>> {
  switch (use) {
    case 'identity':
      return {
        [userIdField(provider)]: string().required().max(255).describe(`The user's id at ${provider}.`),
        [accessTokenField(provider)]: string()
          .required()
          .max(8192)
          .pattern(PROVIDER_TOKEN_PATTERN)
          .describe(`A token issued by ${provider} to this app; verified with ${provider}, never stored.`),
      };
    case 'register':
      return {
        [userIdField(provider)]: string()
          .max(255)
          .requiredIf('type', [provider])
          .describe(`The user's id at ${provider}.`),
        [accessTokenField(provider)]: string()
          .max(8192)
          .pattern(PROVIDER_TOKEN_PATTERN)
          .requiredIf('type', [provider])
          .describe(`A token issued by ${provider}; verified with ${provider}, never stored.`),
      };
    case 'reauth':
      return {
        [userIdField(provider)]: string()
          .max(255)
          .describe(`Re-authentication: the linked ${provider} identity (password-less accounts).`),
        [accessTokenField(provider)]: string()
          .max(8192)
          .pattern(PROVIDER_TOKEN_PATTERN)
          .describe(
            `Re-authentication: a fresh ${provider} token for the linked identity; verified, never stored.`,
          ),
      };
  }
}

/** The fields of every provider in `providers`, as `use` takes them. */
export function credentialFieldsOf(
  providers: readonly string[],
  use: CredentialUse,
): Record<string, Field<string, boolean>> {
  return Object.assign({}, ...providers.map((provider) => credentialFields(provider, use)));
}

/** The credentials of `provider` in a validated request, when both of its fields came. */
export function credentialsIn(
  params: Readonly<Record<string, unknown>>,
  provider: string,
): ProviderCredentials | undefined {
  const userId = params[userIdField(provider)];
  const accessToken = params[accessTokenField(provider)];
  if (typeof userId !== 'string' || typeof accessToken !== 'string') return undefined;
  return { provider, userId, accessToken };
}

/** The credentials a validated request requires (its rules made both fields required): a gap is a bug. */
export function requiredCredentialsIn(
  params: Readonly<Record<string, unknown>>,
  provider: string,
): ProviderCredentials {
  const credentials = credentialsIn(params, provider);
  if (!credentials) throw new Error(`${provider} credentials missing after validation`);
  return credentials;
}

/** Every complete pair of the given providers' credentials a validated request carried. */
export function offeredCredentials(
  params: Readonly<Record<string, unknown>>,
  providers: readonly string[],
): ProviderCredentials[] {
  return providers.flatMap((provider) => credentialsIn(params, provider) ?? []);
}
