import { createHash, timingSafeEqual } from 'node:crypto';
import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import type { WebAuthnConfig } from '../../config/webauthn.js';

/** How long a challenge may be answered: the options' timeout and the stored challenge's lifetime. */
export const CHALLENGE_TTL_MS = 5 * 60_000;

/** What is kept of a challenge: its SHA-256 (a leaked table names no live challenge). */
export function challengeHash(challenge: string): Buffer {
  return createHash('sha256').update(challenge, 'utf8').digest();
}

/** The registration of a credential, as verified: what the passkeys table keeps. */
export interface VerifiedCredential {
  credentialId: Buffer;
  publicKey: Buffer;
  signCount: number;
  transports: string[];
  deviceType: 'singleDevice' | 'multiDevice';
  backedUp: boolean;
}

/** A stored credential an assertion is checked against. */
export interface StoredCredential {
  credentialId: Buffer;
  publicKey: Buffer;
  signCount: number;
  transports: string[];
}

/** An assertion as verified: the counter it carried and whether the credential is backed up now. */
export interface VerifiedAssertion {
  newCount: number;
  backedUp: boolean;
}

/** The verdict of a ceremony that failed: the response proves nothing (never why, to the client). */
export class CeremonyFailedError extends Error {
  constructor(cause?: unknown) {
    super('The WebAuthn response could not be verified.', { cause });
    this.name = 'CeremonyFailedError';
  }
}

/** The expected-challenge check: the client's challenge must hash to the stored one. */
const matches = (stored: Buffer) => (challenge: string) => {
  const offered = challengeHash(challenge);
  return offered.length === stored.length && timingSafeEqual(offered, stored);
};

/**
 * The WebAuthn ceremonies of this relying party, on @simplewebauthn/server: options for the client, and the
 * verification of what the authenticator answered (origin, RP ID, challenge, signature, user presence and
 * verification). User verification is required at every step: a passkey sign-in stands for two factors
 * (something held, and the PIN or biometric that unlocked it), which is why it skips the second factor.
 */
export class WebAuthnCeremonies {
  constructor(private readonly config: WebAuthnConfig) {}

  registrationOptions(input: {
    userHandle: Buffer;
    userName: string;
    displayName: string;
    exclude: readonly StoredCredential[];
  }): Promise<PublicKeyCredentialCreationOptionsJSON> {
    return generateRegistrationOptions({
      rpName: this.config.rpName,
      rpID: this.config.rpId,
      userID: new Uint8Array(input.userHandle),
      userName: input.userName,
      userDisplayName: input.displayName,
      timeout: CHALLENGE_TTL_MS,
      attestationType: 'none',
      excludeCredentials: input.exclude.map((credential) => ({
        id: credential.credentialId.toString('base64url'),
        transports: credential.transports,
      })),
      // Discoverable: the sign-in asks for no email first, the authenticator offers the account.
      authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
    });
  }

  /** `allow`: the credentials that may answer (empty for a sign-in: any discoverable credential may). */
  authenticationOptions(allow: readonly StoredCredential[]): Promise<PublicKeyCredentialRequestOptionsJSON> {
    return generateAuthenticationOptions({
      rpID: this.config.rpId,
      timeout: CHALLENGE_TTL_MS,
      userVerification: 'required',
      allowCredentials: allow.map((credential) => ({
        id: credential.credentialId.toString('base64url'),
        transports: credential.transports,
      })),
    });
  }

  /** Verifies a new credential against the stored hash of the challenge; CeremonyFailedError when it fails. */
  async verifyRegistration(
    response: RegistrationResponseJSON,
    storedChallenge: Buffer,
  ): Promise<VerifiedCredential> {
    let verdict: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
    try {
      verdict = await verifyRegistrationResponse({
        response,
        expectedChallenge: matches(storedChallenge),
        expectedOrigin: this.config.origins,
        expectedRPID: this.config.rpId,
        requireUserVerification: true,
      });
    } catch (error) {
      throw new CeremonyFailedError(error);
    }
    if (!verdict.verified) throw new CeremonyFailedError();
    const { credential, credentialDeviceType, credentialBackedUp } = verdict.registrationInfo;
    return {
      credentialId: Buffer.from(credential.id, 'base64url'),
      publicKey: Buffer.from(credential.publicKey),
      signCount: credential.counter,
      transports: (response.response.transports ?? []).filter((transport) => typeof transport === 'string'),
      deviceType: credentialDeviceType,
      backedUp: credentialBackedUp,
    };
  }

  /**
   * Verifies an assertion by `credential` against the stored hash of the challenge. The library refuses a
   * counter that did not move forward when either side keeps one (a cloned authenticator).
   */
  async verifyAssertion(
    response: AuthenticationResponseJSON,
    storedChallenge: Buffer,
    credential: StoredCredential,
  ): Promise<VerifiedAssertion> {
    let verdict: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
    try {
      verdict = await verifyAuthenticationResponse({
        response,
        expectedChallenge: matches(storedChallenge),
        expectedOrigin: this.config.origins,
        expectedRPID: this.config.rpId,
        credential: {
          id: credential.credentialId.toString('base64url'),
          publicKey: new Uint8Array(credential.publicKey),
          counter: credential.signCount,
          transports: credential.transports,
        },
        requireUserVerification: true,
      });
    } catch (error) {
      throw new CeremonyFailedError(error);
    }
    if (!verdict.verified) throw new CeremonyFailedError();
    const info = verdict.authenticationInfo;
    return { newCount: info.newCounter, backedUp: info.credentialBackedUp };
  }
}
