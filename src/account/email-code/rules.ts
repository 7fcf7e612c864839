import { emailField } from '../../modules/users/rules.js';
import { string } from '../../validation/field-kinds.js';
import { rules } from '../../validation/rule-list.js';

/** Six digits: what the mail shows. */
export const CODE_PATTERN = /^[0-9]{6}$/;

/** No `exists` rule: the answer must not tell whether an account has this address. */
export const emailCodeRules = rules({
  email: emailField.required(),
  purpose: string()
    .required()
    .in(['login', 'register'])
    .describe('`login`: a code to sign in to the account of this address; `register`: to create one.'),
});

export const emailCodeVerifyRules = rules({
  email: emailField.describe('Required with `code`.'),
  code: string().pattern(CODE_PATTERN).describe('The 6 digits of the mail; required without `token`.'),
  token: string().max(512).describe("The token of the mail's link, instead of `email` and `code`."),
});
