import { birthDateField } from '../../modules/guardian/rules.js';
import { type ImageLimits, imageField } from '../../modules/images/rules.js';
import { credentialFieldsOf } from '../../modules/providers/credentials.js';
import {
  emailField,
  genderField,
  newPasswordField,
  slugField,
  type UsersTaken,
  usernameField,
} from '../../modules/users/rules.js';
import { accepted, string } from '../../validation/field-kinds.js';
import { rules } from '../../validation/rule-list.js';
import { CODE_SIGN_UP_TYPE, SIGN_UP_CODE_PATTERN } from './by-code.js';

export interface RegisterRuleOptions {
  /** Accepted values of `type`: `email` and the configured register providers. */
  types: string[];
  /** Every provider the apps offer for registration, configured or not: their fields are always checked. */
  providerNames: string[];
  image: ImageLimits;
  /** The uniqueness questions of email, username and slug (the users service answers them). */
  taken: UsersTaken;
  /** AGE_GATE=birth_date: `birth_date` is required. */
  birthDateRequired: boolean;
}

/**
 * The sign-up's uniqueness is left to its write (`Rule.leftToWrite`): the unique indexes on lower(email),
 * lower(username), the username's skeleton and lower(slug) refuse a taken value anyway (they must, for two
 * sign-ups racing), so asking first cost two more round trips on every sign-up: about 0.3 ms of the 11 ms
 * of CPU a sign-up costs a 2-core machine (docs/performance.md). A taken value still answers the same 422,
 * naming every taken field; it now does so after the password's hash, so a sign-up takes as long whether
 * the email is taken or not (validate/email answers that question by design; register no longer leaks it
 * by timing).
 */
const taken = { leftToWrite: true };

export function registerRules(options: RegisterRuleOptions) {
  return rules({
    type: string().required().in(options.types),
    email: emailField.required().unique(options.taken.email, { name: 'users,email', ...taken }),
    username: usernameField.required().unique(options.taken.username, { name: 'users,username', ...taken }),
    slug: slugField
      .unique(options.taken.slug, { name: 'users,slug', ...taken })
      .describe('Optional; derived from the email when absent.'),
    gender: genderField.required(),
    user_agreement: accepted()
      .required()
      .describe(
        'Agrees to every required document of consents/documents, at its current version. Each optional ' +
          'document is its own `consent_<key>` parameter (`on|yes|1|true` agrees; absent or false does not); ' +
          'a `consent_<key>` naming no optional document is a 422 on that parameter.',
      ),
    profile_picture: imageField(options.image),
    password: newPasswordField.requiredIf('type', ['email']),
    code: string()
      .requiredIf('type', [CODE_SIGN_UP_TYPE])
      .pattern(SIGN_UP_CODE_PATTERN)
      .describe(
        'With type `email_code`: the 6 digits mailed by auth/email-code (purpose `register`) to `email`, or ' +
          "its link's token. No password is needed; one can be set later on the profile.",
      ),
    birth_date: options.birthDateRequired ? birthDateField.required() : birthDateField,
    ...credentialFieldsOf(options.providerNames, { use: 'register' }),
  });
}
