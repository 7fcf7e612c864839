import { IdentityVerificationNotConfiguredError } from '../../errors.js';

/** What the guardian's page hands PortOne's browser SDK to verify the guardian. */
export interface StartedVerification {
  identity_verification_id: string;
  store_id: string;
  channel_key: string;
}

/** A verified person as the guardian's consent needs them: never the CI, only its keyed hash. */
export interface VerifiedPerson {
  /** HMAC of the CI with a key derived from SECRETS_KEY: the same person always hashes the same. */
  ciHash: Buffer;
  /** `YYYY-MM-DD`, as the carrier knows it. */
  birthDate: string;
}

/**
 * The carrier identity verification (본인인증, through PortOne) a guardian's consent takes when it is
 * configured: the stronger of the methods PIPA's enforcement decree (art. 17-2) allows. `subject` binds a
 * verification to what it is for (a guardian link's id): an id started for one link proves nothing for
 * another. `verifyAdult` answers the verified person, or throws a ValidationError naming
 * `identity_verification_id` for a verification that failed, is unknown, stale, replayed or not bound to
 * `subject`; the caller decides whether the person is old enough.
 */
export interface GuardianIdentityCheck {
  readonly configured: boolean;
  start(subject: string): Promise<StartedVerification>;
  verifyAdult(identityVerificationId: string, subject: string): Promise<VerifiedPerson>;
}

/** Where identity verification is not configured: the mailed link alone is the method. */
export const unconfiguredGuardianIdentity: GuardianIdentityCheck = {
  configured: false,
  start: async () => {
    throw new IdentityVerificationNotConfiguredError();
  },
  verifyAdult: async () => {
    throw new IdentityVerificationNotConfiguredError();
  },
};
