import { string } from '../../validation/field-kinds.js';
import { rules } from '../../validation/rule-list.js';
import { reauthRules } from '../reauth/rules.js';
import type { SecondFactorProof } from './codes.js';

const codeField = string()
  .max(32)
  .describe('A 6-digit code of the authenticator app (RFC 6238, 30-second steps); each code works once.');
const recoveryCodeField = string()
  .max(64)
  .describe('One of the recovery codes (`xxxxx-xxxxx`; case, spaces and hyphens ignored); each works once.');

export const enableRules = rules({ code: codeField.required() });

/** Disabling: re-authentication, and `code` or `recovery_code` (checked by the service: either will do). */
export const disableRules = (providers: readonly string[]) =>
  rules({ ...reauthRules(providers), code: codeField, recovery_code: recoveryCodeField });

export const regenerateRules = (providers: readonly string[]) =>
  rules({ ...reauthRules(providers), code: codeField.required() });

export const secondFactorLoginRules = rules({
  challenge: string()
    .required()
    .max(128)
    .describe('The `challenge` of the 401 `second_factor_required` answer to the login.'),
  code: codeField,
  recovery_code: recoveryCodeField,
});

/** The proof fields of a validated request. */
export function secondFactorProof(params: {
  code?: string | undefined;
  recovery_code?: string | undefined;
}): SecondFactorProof {
  return { code: params.code, recoveryCode: params.recovery_code };
}
