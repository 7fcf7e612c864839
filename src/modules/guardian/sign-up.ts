import { needsGuardianConsent } from '../../lib/age.js';

/**
 * What a sign-up's birth date makes of the new account: the date, and `guardian_consent: 'pending'` for a
 * child under 14 on the day of sign-up in Korea (PIPA art. 22-2), who may then read and sign in but not
 * write until a guardian consents. Without a birth date (AGE_GATE=off) nothing is known, nothing is asked.
 */
export function ageAtSignUp(
  birthDate: string | undefined,
  at: Date,
): { birth_date: string | null; guardian_consent: 'pending' | null } {
  if (birthDate === undefined) return { birth_date: null, guardian_consent: null };
  return { birth_date: birthDate, guardian_consent: needsGuardianConsent(birthDate, at) ? 'pending' : null };
}
