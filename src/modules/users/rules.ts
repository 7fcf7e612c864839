import type { Column } from '../../db/users-indexes.js';
import { isCommonPassword } from '../../lib/passwords.js';
import { integer, string } from '../../validation/field-kinds.js';
import { SLUG_PATTERN, USERNAME_PATTERN } from '../../validation/patterns.js';
import type { Rule, TakenLookup } from '../../validation/types.js';

/** Whether a user other than the one given holds a value, per unique column: the users service answers. */
export type UsersTaken = Readonly<Record<Column, TakenLookup>>;

/**
 * The user fields' rules, shared by the validate endpoints, registration and profile updates, so that
 * "available" at validate time means "accepted" at register time.
 */
export const emailField = string().max(255).email().describe('Compared case-insensitively; stored as given.');

export const usernameField = string({ normalize: 'NFC' })
  .max(255)
  .pattern(USERNAME_PATTERN)
  .describe('Korean jamo and syllables, Latin letters and digits; `-`, `_` and `.` inside. NFC-normalised.');

export const slugField = string()
  .min(4)
  .max(256)
  .pattern(SLUG_PATTERN)
  .describe('Latin letters and digits; `-` and `_` inside.');

export const genderField = integer().in([0, 1]).describe('0 (female) or 1 (male).');

/** Refuses the most common passwords and ones equal to the email's local part or the username (NIST SP 800-63B). */
const notCommonPassword: Rule<string> = {
  name: 'not_common_password',
  failures: [{ rule: 'password_common' }],
  check: (password, context) => {
    const email = context.bag.email;
    const username = context.bag.username;
    const identifiers = [
      typeof email === 'string' ? email.split('@')[0] : undefined,
      typeof email === 'string' ? email : undefined,
      typeof username === 'string' ? username : undefined,
    ];
    return isCommonPassword(password, identifiers) ? { rule: 'password_common' } : undefined;
  },
  schema: (schema) => {
    schema['x-not-common'] = true;
  },
};

/** A new password: 8 to 1024 characters (an unbounded input to a slow hash is a denial of service). */
export const newPasswordField = string()
  .min(8)
  .max(1024)
  .rule(notCommonPassword)
  .describe('Never trimmed. Common passwords and ones equal to the email or username are refused.');
