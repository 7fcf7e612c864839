import { ConfigError, type Env, integer, raw } from './env.js';
import { linkTemplate } from './mail.js';

/** `off`: birth dates are optional (the seed's sign-up); `birth_date`: register requires one. */
export type AgeGate = 'off' | 'birth_date';

/** Age at sign-up and a legal guardian's consent for children under 14 (docs/identity.md). */
export interface GuardianConfig {
  /** AGE_GATE. */
  ageGate: AgeGate;
  /** GUARDIAN_CONSENT_URL: the guardian's link, with `{token}`. */
  consentUrl: string;
  /** GUARDIAN_CONSENT_DAYS: days from sign-up within which a guardian must consent, else the child is erased. */
  consentDays: number;
}

function ageGate(env: Env): AgeGate {
  const value = raw(env, 'AGE_GATE')?.toLowerCase() ?? 'off';
  if (value !== 'off' && value !== 'birth_date') {
    throw new ConfigError('AGE_GATE', `must be off or birth_date (got "${value}")`);
  }
  return value;
}

export function parseGuardian(env: Env, publicUrl: string): GuardianConfig {
  return {
    ageGate: ageGate(env),
    consentUrl: linkTemplate(env, 'GUARDIAN_CONSENT_URL', `${publicUrl}/guardian-consent?token={token}`),
    consentDays: integer(env, 'GUARDIAN_CONSENT_DAYS', 5, 1, 90),
  };
}
