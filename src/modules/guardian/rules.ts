import { EARLIEST_BIRTH_DATE, koreanDate, parseCalendarDate } from '../../lib/age.js';
import { boolean, string } from '../../validation/field-kinds.js';
import { rules } from '../../validation/rule-list.js';
import type { Rule } from '../../validation/types.js';
import { emailField } from '../users/rules.js';

const calendarDate: Rule<string> = {
  name: 'date_format:Y-m-d',
  failures: [{ rule: 'date' }],
  check: (value) => (parseCalendarDate(value) ? undefined : { rule: 'date' }),
  schema: (schema) => {
    schema.format = 'date';
  },
};

/** Not after today in Korea (the service's users' calendar; a birth date has no time zone of its own). */
const notInTheFuture: Rule<string> = {
  name: 'before_or_equal:today',
  failures: [{ rule: 'before_or_equal_today' }],
  check: (value) => (value <= koreanDate(new Date()) ? undefined : { rule: 'before_or_equal_today' }),
};

const notAbsurdlyOld: Rule<string> = {
  name: `after_or_equal:${EARLIEST_BIRTH_DATE}`,
  failures: [{ rule: 'after_or_equal', params: { value: EARLIEST_BIRTH_DATE } }],
  check: (value) =>
    value >= EARLIEST_BIRTH_DATE
      ? undefined
      : { rule: 'after_or_equal', params: { value: EARLIEST_BIRTH_DATE } },
};

/** A birth date as register takes it: a real calendar date, `YYYY-MM-DD`, from 1900 to today. */
export const birthDateField = string()
  .rule(calendarDate)
  .rule(notInTheFuture)
  .rule(notAbsurdlyOld)
  .describe(
    '`YYYY-MM-DD`. Required when AGE_GATE=birth_date. Under 14 on the day of sign-up (in Korea), the account ' +
      'waits for a legal guardian’s consent (`guardian_consent: "pending"`).',
  );

export const guardianRequestRules = rules({
  guardian_email: emailField
    .required()
    .describe('The legal guardian’s address: a link to consent goes there (at most 3 an hour per account).'),
});

/** The mailed link's token (256 random bits, base64url). */
const tokenField = string().required().max(512).describe('The token from the link mailed to the guardian.');

export const guardianLinkRules = rules({ token: tokenField });

export const guardianWithdrawRules = rules({
  token: tokenField,
  identity_verification_id: string()
    .max(255)
    .describe(
      'Required when the consent was given with a verified identity (the link’s `method` is ' +
        '`identity_verification`): a verification from guardian/identity/start for this link, which must show ' +
        'the guardian who consented. Not asked for a consent given by the mailed link.',
    ),
});

export const guardianConsentRules = rules({
  token: tokenField,
  agree: boolean()
    .required()
    .describe('`true` consents; `false` refuses, and the child’s account is erased.'),
  identity_verification_id: string()
    .max(255)
    .describe(
      'Required when identity verification is configured: the guardian’s verification, from ' +
        'guardian/identity/start, which must show an adult. Not asked otherwise (the mailed link alone).',
    ),
});
