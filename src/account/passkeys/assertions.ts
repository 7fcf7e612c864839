import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/server';
import type { PasskeyRow, WebAuthnChallengePurpose } from '../../db/schema.js';
import { InvalidCredentialsError } from '../../errors.js';
import { newId } from '../../lib/ids.js';
import type { WebAuthnChallengesRepo } from '../../modules/passkeys/challenges-repo.js';
import { type PasskeysRepo, signCountOf } from '../../modules/passkeys/repo.js';
import type { PasskeyProof, PasskeyProofs } from '../reauth/service.js';
import {
  CeremonyFailedError,
  CHALLENGE_TTL_MS,
  challengeHash,
  type StoredCredential,
  type VerifiedAssertion,
  type WebAuthnCeremonies,
} from './ceremonies.js';

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Options for `navigator.credentials.get()`, and the id of their challenge for the answer. */
export interface AssertionOptions {
  options: PublicKeyCredentialRequestOptionsJSON;
  challenge_id: string;
}

/** An assertion that proved a passkey: the passkey, and the counter to record for it. */
export interface ProvenPasskey {
  passkey: PasskeyRow;
  assertion: VerifiedAssertion;
}

export function storedCredential(row: PasskeyRow): StoredCredential {
  return {
    credentialId: Buffer.from(row.credential_id),
    publicKey: Buffer.from(row.public_key),
    signCount: signCountOf(row),
    transports: row.transports,
  };
}

/**
 * Passkey assertions, for sign-in and for re-authentication: the challenge (stored, single-use, five
 * minutes), and the check of an answer. Every failure is InvalidCredentialsError, whatever went wrong (an
 * unknown credential, another user's, a wrong signature, a used or expired challenge, a counter that went
 * back): the client learns nothing it could aim a next attempt with.
 */
export class PasskeyAssertions implements PasskeyProofs {
  constructor(
    private readonly challenges: WebAuthnChallengesRepo,
    private readonly passkeys: PasskeysRepo,
    private readonly ceremonies: WebAuthnCeremonies,
  ) {}

  /**
   * A new challenge. For a sign-in (`userId` null) the options name no credential, so the authenticator
   * offers its discoverable ones; for re-authentication they name the user's passkeys and the challenge is
   * bound to the user.
   */
  async options(
    purpose: 'authentication' | 'reauthentication',
    userId: string | null,
  ): Promise<AssertionOptions> {
    const allow = userId === null ? [] : (await this.passkeys.listFor(userId)).map(storedCredential);
    const options = await this.ceremonies.authenticationOptions(allow);
    const id = newId();
    await this.challenges.insert({
      id,
      purpose,
      userId,
      challengeHash: challengeHash(options.challenge),
      expiresAt: new Date(Date.now() + CHALLENGE_TTL_MS),
    });
    return { options, challenge_id: id };
  }

  /**
   * Checks an answer to the challenge `challengeId` of `purpose`, using the challenge up whatever the
   * outcome; with `userId`, the challenge must be bound to that user and the passkey be theirs. Does not
   * record the use: the caller does, in its own write (PasskeysRepo.recordUse).
   */
  async prove(
    challengeId: string,
    response: AuthenticationResponseJSON,
    purpose: WebAuthnChallengePurpose,
    userId?: string,
  ): Promise<ProvenPasskey> {
    if (!UUID_PATTERN.test(challengeId)) throw new InvalidCredentialsError();
    const challenge = await this.challenges.consumeById(challengeId, purpose);
    if (challenge === undefined || challenge.expired) throw new InvalidCredentialsError();
    if (userId !== undefined && challenge.userId !== userId) throw new InvalidCredentialsError();
    const passkey = await this.passkeys.findByCredentialId(Buffer.from(response.rawId, 'base64url'));
    if (passkey === undefined || (userId !== undefined && passkey.user_id !== userId)) {
      throw new InvalidCredentialsError();
    }
    // The user handle, when the authenticator returns one, must be the passkey owner's.
    if (response.response.userHandle !== undefined) {
      const handle = await this.passkeys.handleOf(passkey.user_id);
      if (handle?.toString('base64url') !== response.response.userHandle) throw new InvalidCredentialsError();
    }
    try {
      const assertion = await this.ceremonies.verifyAssertion(
        response,
        challenge.challengeHash,
        storedCredential(passkey),
      );
      return { passkey, assertion };
    } catch (error) {
      if (error instanceof CeremonyFailedError) throw new InvalidCredentialsError();
      throw error;
    }
  }

  /** Re-authentication (PasskeyProofs): proves and records the use in one conditional statement. */
  async confirm(userId: string, proof: PasskeyProof): Promise<boolean> {
    try {
      const { passkey, assertion } = await this.prove(
        proof.challengeId,
        proof.response,
        'reauthentication',
        userId,
      );
      return await this.passkeys.recordUse(
        passkey.id,
        signCountOf(passkey),
        assertion.newCount,
        assertion.backedUp,
      );
    } catch (error) {
      if (error instanceof InvalidCredentialsError) return false;
      throw error;
    }
  }

  async hasPasskeys(userId: string): Promise<boolean> {
    return (await this.passkeys.countFor(userId)) > 0;
  }
}
