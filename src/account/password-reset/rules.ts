import { tokenField } from '../../modules/lifecycle/rules.js';
import { emailField, newPasswordField } from '../../modules/users/rules.js';
import { rules } from '../../validation/rule-list.js';

/** No `exists` rule: the answer must not tell whether an account has this address. */
export const forgotPasswordRules = rules({ email: emailField.required() });

/**
 * The register password rules. The common-password rule here sees no email or username in the request;
 * the service checks the password against the account's own.
 */
export const resetPasswordRules = rules({
  token: tokenField,
  password: newPasswordField.required(),
});
