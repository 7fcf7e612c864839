import { createHmac } from 'node:crypto';
import { ValidationError } from '../../errors.js';
import { EARLIEST_BIRTH_DATE, koreanDate, parseCalendarDate } from '../../lib/age.js';
import type { IdentityGateway } from './portone.js';
import { PortOneUnavailableError } from './portone.js';
import { VERIFICATION_WINDOW_MINUTES } from './repo.js';

/** A person as a verification showed them, reduced to what the service may keep (docs/identity.md). */
export interface VerifiedPerson {
  /** HMAC-SHA256 of the CI under the key derived from SECRETS_KEY: the same person, the same hash. */
  ciHash: Buffer;
  /** `YYYY-MM-DD`. */
  birthDate: string;
  foreigner: boolean;
  /** 김*지: the first and last characters, the rest masked. */
  maskedName: string;
  verifiedAt: Date;
}

const BIRTH_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** How far ahead of our clock PortOne's may run: a `verifiedAt` later than this is no verification yet. */
export const CLOCK_SKEW_MS = 5 * 60_000;

/**
 * What no true verification answers, each refused like a failed one (a 422 on the field, nothing stored): a
 * birth date that is no calendar date (2015-02-30), after today in Korea or before 1900, and a verification
 * made later than now plus the clock's tolerance. A wrong clock or a scrambled answer must not make a person
 * an adult, a child, or verified for longer than the window allows.
 */
function implausibility(birthDate: string, verifiedAt: Date, now: Date): string | undefined {
  if (
    parseCalendarDate(birthDate) === undefined ||
    birthDate > koreanDate(now) ||
    birthDate < EARLIEST_BIRTH_DATE
  ) {
    return 'identity_birth_date_implausible';
  }
  if (verifiedAt.getTime() > now.getTime() + CLOCK_SKEW_MS) return 'identity_time_implausible';
  return undefined;
}

/** The name with every character but the first and the last masked (a two-character name keeps its first). */
export function maskName(name: string): string {
  const characters = Array.from(name.normalize('NFC').trim());
  if (characters.length <= 1) return '*';
  if (characters.length === 2) return `${characters[0]}*`;
  return `${characters[0]}${'*'.repeat(characters.length - 2)}${characters.at(-1)}`;
}

/**
 * Asks PortOne about one verification id and returns the person only when it counts: VERIFIED, in our store
 * (PortOne is asked with PORTONE_STORE_ID, and another store's verification is unknown to it), and verified
 * within the last 30 minutes, with a plausible birth date and time (`implausibility`). Everything else is a
 * 422 on `field`; PortOne unreachable or slow is a 503.
 * Who may use the id (the signed-in user it was issued to, a guardian's link) is the caller's rule.
 */
export class IdentityVerifier {
  constructor(
    private readonly gateway: IdentityGateway,
    /** The HMAC key of CIs (deriveKey(SECRETS_KEY, 'identity ci')). */
    private readonly ciKey: Buffer,
  ) {}

  async fetchVerified(
    identityVerificationId: string,
    field = 'identity_verification_id',
  ): Promise<VerifiedPerson> {
    const answer = await this.gateway.lookUp(identityVerificationId);
    if (answer.kind === 'unknown') throw ValidationError.notFound(field);
    if (answer.kind === 'not_verified') {
      throw new ValidationError({ [field]: [{ rule: 'identity_not_verified' }] });
    }
    const { verifiedCustomer: customer, verifiedAt } = answer.verification;
    const verifiedAtDate = new Date(verifiedAt);
    const birthDate = customer.birthDate ?? '';
    // A channel that gives no CI or birth date cannot keep one account per person or tell an adult: a
    // set-up fault of the deployment's PortOne channel, not the user's.
    if (!customer.ci || !BIRTH_DATE.test(birthDate) || Number.isNaN(verifiedAtDate.getTime())) {
      throw new PortOneUnavailableError('a VERIFIED answer without a CI, a birth date or a time');
    }
    const now = new Date();
    const implausible = implausibility(birthDate, verifiedAtDate, now);
    if (implausible) throw new ValidationError({ [field]: [{ rule: implausible }] });
    if (now.getTime() - verifiedAtDate.getTime() > VERIFICATION_WINDOW_MINUTES * 60_000) {
      throw new ValidationError({ [field]: [{ rule: 'identity_expired' }] });
    }
    return {
      ciHash: createHmac('sha256', this.ciKey).update(customer.ci, 'utf8').digest(),
      birthDate,
      foreigner: customer.isForeigner === true,
      maskedName: maskName(customer.name ?? ''),
      verifiedAt: verifiedAtDate,
    };
  }
}
