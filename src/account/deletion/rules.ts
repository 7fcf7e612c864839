import { emailField } from '../../modules/users/rules.js';
import { string } from '../../validation/field-kinds.js';
import { rules } from '../../validation/rule-list.js';

/**
 * Either the mailed `token`, or `email` and `password` (required when no token comes: the service says so,
 * as the rule engine has no `required_without`).
 */
export const cancelDeletionRules = rules({
  token: string()
    .max(512)
    .describe(
      'The token from the link in the mail that announced the deletion. Without it: email and password.',
    ),
  email: emailField.describe("The account's email, with `password`, when no token is sent."),
  password: string().max(1024).describe("The account's password, with `email`, when no token is sent."),
});

/** What a cancel request carries (validated). */
export interface CancelProof {
  token?: string | undefined;
  email?: string | undefined;
  password?: string | undefined;
}
