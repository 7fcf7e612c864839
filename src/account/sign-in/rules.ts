import type { UserWithProviders } from '../../db/schema.js';
import { emailField } from '../../modules/users/rules.js';
import { rules, string } from '../../validation/fields.js';
import type { ConvertingRule } from '../../validation/types.js';

/**
 * Laravel's `exists:users,email`, handing on the account it found: the login reads the account once (with its
 * linked providers, which the answer shows), not once here and again in the service.
 */
const accountOfEmail: ConvertingRule<string, UserWithProviders> = {
  name: 'exists:users,email',
  failures: [{ rule: 'exists' }],
  check: async (email, context) => {
    const account = await context.lookups.accountByEmail(email);
    return account ? { converted: account } : { rule: 'exists' };
  },
};

export const loginEmailRules = rules({
  email: emailField.required().convert(accountOfEmail),
  password: string().required().max(1024),
});
