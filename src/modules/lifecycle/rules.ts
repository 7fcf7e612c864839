import { string } from '../../validation/field-kinds.js';
import { rules } from '../../validation/rule-list.js';

/** A token from a mailed link: 43 base64url characters; anything up to 512 is looked up (and not found). */
export const tokenField = string().required().max(512).describe('The token from the link in the mail.');

export const verifyEmailRules = rules({ token: tokenField });
