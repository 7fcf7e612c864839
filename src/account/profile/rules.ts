import {
  emailField,
  genderField,
  newPasswordField,
  slugField,
  type UsersTaken,
  usernameField,
} from '../../modules/users/rules.js';
import { string } from '../../validation/field-kinds.js';
import { rules } from '../../validation/rule-list.js';
import { reauthRules } from '../reauth/rules.js';

/**
 * user/update: every field optional, with the registration rules; uniqueness ignores the user itself, so a
 * user may re-case their own name. The re-authentication fields (`current_password`, or a linked provider's
 * credentials) are checked by the service: only it knows whether the user has a password.
 */
export const userUpdateRules = (providers: readonly string[], taken: UsersTaken) =>
  rules({
    username: usernameField.unique(taken.username, { name: 'users,username', ignoreCurrentUser: true }),
    slug: slugField.unique(taken.slug, { name: 'users,slug', ignoreCurrentUser: true }),
    gender: genderField,
    bio: string().max(500).nullable().describe('At most 500 characters.'),
    email: emailField.unique(taken.email, { name: 'users,email', ignoreCurrentUser: true }),
    password: newPasswordField.describe(
      'A new password. Signs out every other session. Needs re-authentication: `current_password`, or a ' +
        "linked provider's credentials when the user has no password yet.",
    ),
    ...reauthRules(providers),
  });
