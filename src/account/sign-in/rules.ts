import type { UserWithProviders } from '../../db/schema.js';
import { emailField } from '../../modules/users/rules.js';
import { string } from '../../validation/field-kinds.js';
import { rules } from '../../validation/rule-list.js';
import type { ConvertingRule } from '../../validation/types.js';

/** The account that holds this email (case-insensitively), with its linked providers (the users service). */
export type AccountByEmail = (email: string) => Promise<UserWithProviders | undefined>;

/**
 * Laravel's `exists:users,email`, handing on the account it found: the login reads the account once (with its
 * linked providers, which the answer shows), not once here and again in the service.
 */
const accountOfEmail = (accountByEmail: AccountByEmail): ConvertingRule<string, UserWithProviders> => ({
  name: 'exists:users,email',
  failures: [{ rule: 'exists' }],
  check: async (email) => {
    const account = await accountByEmail(email);
    return account ? { converted: account } : { rule: 'exists' };
  },
});

export const loginEmailRules = (accountByEmail: AccountByEmail) =>
  rules({
    email: emailField.required().convert(accountOfEmail(accountByEmail)),
    password: string().required().max(1024),
  });
