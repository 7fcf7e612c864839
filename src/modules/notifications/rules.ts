import { rules } from '../../validation/fields.js';

/** The test push takes no parameters: it goes to every device of the signed-in user. */
export const testNotificationRules = rules({});
