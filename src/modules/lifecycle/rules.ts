import { rules, string } from '../../validation/fields.js';
import { emailField, newPasswordField } from '../users/rules.js';

/** A token from a mailed link: 43 base64url characters; anything up to 512 is looked up (and not found). */
const tokenField = string().required().max(512).describe('The token from the link in the mail.');

export const verifyEmailRules = rules({ token: tokenField });

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
