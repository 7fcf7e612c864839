import { createHash, randomBytes } from 'node:crypto';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { Executor } from '../../db/transaction.js';
import { ValidationError } from '../../errors.js';
import { newId } from '../../lib/ids.js';
import type { StaffPasskeyRepo } from './passkey-repo.js';

/** How long a staff ceremony's challenge may be answered (the users' five minutes). */
export const STAFF_CHALLENGE_TTL_MS = 5 * 60_000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Marks a staff handle: with 32 random bytes it is longer than any user's handle, so never one of theirs. */
const HANDLE_PREFIX = Buffer.from('staff:', 'utf8');

/** A credential as checked against: the stored key and counter. */
export interface StaffCredential {
  credentialId: Buffer;
  publicKey: Buffer;
  signCount: number;
  transports: string[];
}

/**
 * The relying party's ceremonies: the users' WebAuthnCeremonies (account/passkeys/ceremonies.ts), the same
 * code wired in services/staff.ts. The verifications answer undefined when a response proves nothing.
 */
export interface StaffCeremonies {
  registrationOptions(input: {
    userHandle: Buffer;
    userName: string;
    displayName: string;
    exclude: readonly StaffCredential[];
  }): Promise<PublicKeyCredentialCreationOptionsJSON>;
  authenticationOptions(allow: readonly StaffCredential[]): Promise<PublicKeyCredentialRequestOptionsJSON>;
  verifyRegistration(
    response: RegistrationResponseJSON,
    storedChallenge: Buffer,
  ): Promise<StaffCredential | undefined>;
  verifyAssertion(
    response: AuthenticationResponseJSON,
    storedChallenge: Buffer,
    credential: StaffCredential,
  ): Promise<{ newCount: number } | undefined>;
  /** Set where no browser can make a passkey (an IP-address relying party): what every ceremony answers. */
  unavailable: (() => Error) | undefined;
}

/** Options for the browser's ceremony, and the id of their challenge for the answer. */
export interface CeremonyOptions<T> {
  options: T;
  challenge_id: string;
}

/** What a passkey sign-in sends besides the password. */
export interface PasskeyOffer {
  challengeId: string;
  response: AuthenticationResponseJSON;
}

/** An assertion that proved one of the member's passkeys, and the counter to record for it. */
export interface PasskeyProof {
  passkeyId: string;
  previousCount: number;
  newCount: number;
}

/** A challenge used up, when it was alive: whom it was bound to, and its digest. */
export interface EnrollmentChallenge {
  staffId: string | null;
  hash: Buffer;
}

const digest = (challenge: string) => createHash('sha256').update(challenge, 'utf8').digest();
const invalidResponse = () => new ValidationError({ response: [{ rule: 'passkey_invalid' }] });

/**
 * Staff passkeys: the challenges (single use, five minutes on the console's clock), a credential made at
 * enrollment, and the check of a sign-in's assertion. Kept apart from the users' passkeys: a staff credential
 * never signs anyone into the app, nor a user's credential into the console.
 */
export class StaffPasskeys {
  private readonly now: () => number;

  constructor(
    private readonly deps: { repo: StaffPasskeyRepo; ceremonies: StaffCeremonies; now?: () => number },
  ) {
    this.now = deps.now ?? Date.now;
  }

  /** Registration options for a member enrolling, the challenge bound to them; their handle made once. */
  async enrollmentOptions(
    trx: Executor,
    member: { id: string; email: string; webauthn_handle: Uint8Array | null },
  ): Promise<CeremonyOptions<PublicKeyCredentialCreationOptionsJSON>> {
    this.admit();
    const repo = this.deps.repo.on(trx);
    let handle = member.webauthn_handle && Buffer.from(member.webauthn_handle);
    if (!handle) {
      handle = Buffer.concat([HANDLE_PREFIX, randomBytes(32)]);
      await repo.setHandle(member.id, handle);
    }
    const options = await this.deps.ceremonies.registrationOptions({
      userHandle: handle,
      userName: member.email,
      displayName: `${member.email} (console)`,
      exclude: [],
    });
    return { options, challenge_id: await this.challenge(repo, 'enrollment', member.id, options.challenge) };
  }

  /** Options for a sign-in: no credential named (the answer tells nobody who is staff), the member picks. */
  async signInOptions(): Promise<CeremonyOptions<PublicKeyCredentialRequestOptionsJSON>> {
    this.admit();
    const options = await this.deps.ceremonies.authenticationOptions([]);
    return {
      options,
      challenge_id: await this.challenge(this.deps.repo, 'sign_in', null, options.challenge),
    };
  }

  /**
   * Uses up the enrollment challenge `challengeId`, outside any transaction: it works once, whatever the
   * outcome. Undefined when unknown, used or expired; the member it is bound to is checked by `register`.
   */
  async takeEnrollmentChallenge(challengeId: string): Promise<EnrollmentChallenge | undefined> {
    this.admit();
    return this.consume(challengeId, 'enrollment');
  }

  /** Checks a new credential against the member's challenge and stores it; a 422 on `response` otherwise. */
  async register(
    trx: Executor,
    staffId: string,
    challenge: EnrollmentChallenge | undefined,
    response: RegistrationResponseJSON,
  ): Promise<void> {
    if (challenge?.staffId !== staffId) throw invalidResponse();
    const credential = await this.deps.ceremonies.verifyRegistration(response, challenge.hash);
    if (!credential) throw invalidResponse();
    await this.deps.repo.on(trx).insert({
      id: newId(),
      staffId,
      credentialId: credential.credentialId,
      publicKey: credential.publicKey,
      signCount: credential.signCount,
      transports: credential.transports,
    });
  }

  /**
   * The proof of an assertion by one of `member`'s passkeys, or undefined: an unknown, used or expired
   * challenge, another's credential, a handle not theirs, a wrong signature or a counter that went back. The
   * challenge is used up first, whoever signs in.
   */
  async prove(
    offer: PasskeyOffer,
    member: { id: string; webauthn_handle: Uint8Array | null } | undefined,
  ): Promise<PasskeyProof | undefined> {
    const challenge = await this.consume(offer.challengeId, 'sign_in');
    if (!challenge) return undefined;
    // Looked up whoever is named: a look-up for passkey members alone would time which addresses are theirs.
    const passkey = await this.deps.repo.byCredentialId(Buffer.from(offer.response.rawId, 'base64url'));
    if (!member?.webauthn_handle || !passkey || passkey.staff_id !== member.id) return undefined;
    const handle = offer.response.response.userHandle;
    if (handle !== undefined && handle !== Buffer.from(member.webauthn_handle).toString('base64url'))
      return undefined;
    const previousCount = Number(passkey.sign_count);
    const verified = await this.deps.ceremonies.verifyAssertion(offer.response, challenge.hash, {
      credentialId: Buffer.from(passkey.credential_id),
      publicKey: Buffer.from(passkey.public_key),
      signCount: previousCount,
      transports: passkey.transports,
    });
    return verified && { passkeyId: passkey.id, previousCount, newCount: verified.newCount };
  }

  /** Records the use of a proven passkey in the sign-in's transaction; false when another use came first. */
  recordUse(trx: Executor, proof: PasskeyProof): Promise<boolean> {
    return this.deps.repo
      .on(trx)
      .recordUse(proof.passkeyId, proof.previousCount, proof.newCount, new Date(this.now()));
  }

  private admit(): void {
    const refusal = this.deps.ceremonies.unavailable;
    if (refusal) throw refusal();
  }

  private async challenge(
    repo: StaffPasskeyRepo,
    purpose: 'enrollment' | 'sign_in',
    staffId: string | null,
    challenge: string,
  ): Promise<string> {
    const id = newId();
    const now = this.now();
    await repo.insertChallenge({
      id,
      purpose,
      staffId,
      challengeHash: digest(challenge),
      expiresAt: new Date(now + STAFF_CHALLENGE_TTL_MS),
      now: new Date(now),
    });
    return id;
  }

  /** The challenge with this id, used up; undefined when unknown, used or expired at the console's now. */
  private async consume(
    challengeId: string,
    purpose: 'enrollment' | 'sign_in',
  ): Promise<EnrollmentChallenge | undefined> {
    if (!UUID.test(challengeId)) return undefined;
    const challenge = await this.deps.repo.consumeChallenge(challengeId, purpose);
    if (!challenge || challenge.expiresAt.getTime() <= this.now()) return undefined;
    return { staffId: challenge.staffId, hash: challenge.challengeHash };
  }
}
