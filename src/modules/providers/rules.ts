import { string } from '../../validation/fields.js';
import { PROVIDER_TOKEN_PATTERN } from '../../validation/patterns.js';
import { accessTokenField, userIdField } from './service.js';

/** `<name>_user_id` and `<name>_access_token`, both required: what login and link take. */
export function credentialRules(provider: string) {
  return {
    [userIdField(provider)]: string().required().max(255).describe(`The user's id at ${provider}.`),
    [accessTokenField(provider)]: string()
      .required()
      .max(8192)
      .pattern(PROVIDER_TOKEN_PATTERN)
      .describe(`A token issued by ${provider} to this app; verified with ${provider}, never stored.`),
  };
}
