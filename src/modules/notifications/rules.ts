import { rules } from '../../validation/rule-list.js';

/** The test push takes no parameters: it goes to every device of the signed-in user. */
export const testNotificationRules = rules({});
