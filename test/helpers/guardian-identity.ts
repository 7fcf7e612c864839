import { createHmac } from 'node:crypto';
import type {
  GuardianIdentityCheck,
  StartedVerification,
  VerifiedPerson,
} from '../../src/account/guardian/identity.js';
import { ValidationError } from '../../src/errors.js';
import { unique } from './factories.js';

interface Verification {
  subject: string;
  person?: { ci: string; birthDate: string };
  used: boolean;
}

/**
 * A real in-process implementation of GuardianIdentityCheck, for the guardian flow's own tests: it keeps
 * the verifications it started, and `complete` plays the guardian finishing PortOne's window. The PortOne
 * verifier itself (and its fake PortOne over HTTP) is tested where it lives.
 */
export class InMemoryGuardianIdentity implements GuardianIdentityCheck {
  readonly configured = true;
  readonly #verifications = new Map<string, Verification>();

  async start(subject: string): Promise<StartedVerification> {
    const id = `identity-verification-${unique()}`;
    this.#verifications.set(id, { subject, used: false });
    return { identity_verification_id: id, store_id: 'store-test', channel_key: 'channel-key-test' };
  }

  /** The person behind a started verification proves who they are. */
  complete(id: string, ci: string, birthDate: string): void {
    const verification = this.#verifications.get(id);
    if (!verification) throw new Error(`no verification ${id}`);
    verification.person = { ci, birthDate };
  }

  async verifyAdult(id: string, subject: string): Promise<VerifiedPerson> {
    const verification = this.#verifications.get(id);
    if (!verification?.person || verification.used || verification.subject !== subject) {
      throw ValidationError.notFound('identity_verification_id');
    }
    verification.used = true;
    return {
      ciHash: createHmac('sha256', 'test-key').update(verification.person.ci).digest(),
      birthDate: verification.person.birthDate,
    };
  }
}
