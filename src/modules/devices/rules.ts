import { boolean, string } from '../../validation/field-kinds.js';
import { rules } from '../../validation/rule-list.js';
import type { Rule } from '../../validation/types.js';

export const PLATFORMS = ['ios', 'android', 'web'] as const;

/** BCP 47 language tags as devices report them (`ko`, `ko-KR`, `en_US`, `zh-Hant-TW`). */
const LOCALE_PATTERN = /^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8}){0,3}$/;

/** Laravel's `timezone` rule: an IANA zone name the runtime knows (`Asia/Seoul`, `UTC`). */
const ianaTimezone: Rule<string> = {
  name: 'timezone',
  failures: [{ rule: 'timezone' }],
  check: (value) => {
    try {
      new Intl.DateTimeFormat('en', { timeZone: value });
      return undefined;
    } catch {
      return { rule: 'timezone' };
    }
  },
};

/**
 * Every field but `device_id` is optional: the app sends what it knows, and what it leaves out keeps its
 * stored value.
 */
export const deviceUpdateRules = rules({
  device_id: string().required().max(255).describe('A stable id the app generates once per installation.'),
  platform: string().in([...PLATFORMS]),
  push_token: string()
    .max(4096)
    .nullable()
    .describe(
      'APNs / FCM token. It belongs to one device: registering it here removes it everywhere else. ' +
        'Empty removes it from this device (the app signed out of notifications).',
    ),
  app_version: string().max(64).nullable(),
  os_version: string().max(64).nullable(),
  locale: string().max(35).pattern(LOCALE_PATTERN).nullable().describe('BCP 47, e.g. `ko-KR`.'),
  timezone: string().max(64).rule(ianaTimezone).nullable().describe('IANA zone name, e.g. `Asia/Seoul`.'),
  push_enabled: boolean().describe('Whether the user allows notifications on this device (default true).'),
});
