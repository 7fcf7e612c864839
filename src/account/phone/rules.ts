import { string } from '../../validation/field-kinds.js';
import { rules } from '../../validation/rule-list.js';
import { CODE_PATTERN } from '../email-code/rules.js';
import { reauthRules } from '../reauth/rules.js';

/** A mobile number as typed: `010-1234-5678`, `01012345678`, `+82 10 1234 5678`. */
export const phoneField = string()
  .max(32)
  .describe(
    'A mobile number, as typed (`010-1234-5678`, `+82 10 1234 5678`); read as Korean without a `+`. Only ' +
      'mobile numbers of `SMS_ALLOWED_COUNTRIES` (default KR).',
  );

export const smsCodeField = string().pattern(CODE_PATTERN).describe('The 6 digits of the text message.');

export const userPhoneRules = (providers: readonly string[]) =>
  rules({ phone: phoneField.required(), ...reauthRules(providers) });

export const userPhoneVerifyRules = rules({ code: smsCodeField.required() });

export const userPhoneRemoveRules = (providers: readonly string[]) => rules({ ...reauthRules(providers) });

export const phoneCodeRules = rules({ phone: phoneField.required() });

export const phoneCodeVerifyRules = rules({ phone: phoneField.required(), code: smsCodeField.required() });
