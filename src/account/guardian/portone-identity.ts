import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { ValidationError } from '../../errors.js';
import type { IdentityVerifier } from '../../modules/identity/verifier.js';
import type { GuardianIdentityCheck, StartedVerification, VerifiedPerson } from './identity.js';

const FIELD = 'identity_verification_id';
/** `gv-<nonce>-<tag>`: the nonce and a tag over the nonce and the guardian link it was started for. */
const ISSUED_ID = /^gv-([A-Za-z0-9_-]{16})-([A-Za-z0-9_-]{22})$/;

/**
 * A guardian's carrier verification through PortOne. The id handed to PortOne's window is bound to the
 * guardian link it was started for by a keyed tag (no row to keep: a verification started for one link
 * proves nothing for another, and a forged id is refused before PortOne is asked); PortOne's answer must be
 * VERIFIED in this store within the last 30 minutes (IdentityVerifier). Replay is closed by the link itself:
 * it is single-use, and answered with the consent this proves.
 */
export class PortOneGuardianIdentity implements GuardianIdentityCheck {
  readonly configured = true;

  constructor(
    private readonly verifier: IdentityVerifier,
    private readonly portone: { storeId: string; channelKey: string },
    /** The tag's key (deriveKey(SECRETS_KEY, 'guardian identity')). */
    private readonly key: Buffer,
  ) {}

  async start(subject: string): Promise<StartedVerification> {
    const nonce = randomBytes(12).toString('base64url');
    return {
      identity_verification_id: `gv-${nonce}-${this.#tag(nonce, subject).toString('base64url')}`,
      store_id: this.portone.storeId,
      channel_key: this.portone.channelKey,
    };
  }

  async verifyAdult(identityVerificationId: string, subject: string): Promise<VerifiedPerson> {
    const issued = ISSUED_ID.exec(identityVerificationId);
    const [nonce, tag] = [issued?.[1], issued?.[2]];
    if (nonce === undefined || tag === undefined) throw ValidationError.notFound(FIELD);
    const expected = this.#tag(nonce, subject);
    const given = Buffer.from(tag, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw ValidationError.notFound(FIELD);
    }
    const person = await this.verifier.fetchVerified(identityVerificationId, FIELD);
    return { ciHash: person.ciHash, birthDate: person.birthDate };
  }

  #tag(nonce: string, subject: string): Buffer {
    return createHmac('sha256', this.key).update(`${nonce}\n${subject}`).digest().subarray(0, 16);
  }
}
