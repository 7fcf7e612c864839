import { PORTONE_VARIABLES } from '../../config/identity.js';
import { isUniqueViolation, violatedConstraint } from '../../db/errors.js';
import { type Executor, writeTransaction } from '../../db/transaction.js';
import {
  CommitFailedError,
  IdentityInUseError,
  IdentityVerificationNotConfiguredError,
  ValidationError,
} from '../../errors.js';
import type { AuthContext } from '../../http/auth-context.js';
import { isAdult, needsGuardianConsent } from '../../lib/age.js';
import { newId } from '../../lib/ids.js';
import { iso } from '../../lib/time.js';
import type { RateCounter } from '../../limits/rate-counter.js';
import { accountEvent, insertAccountEventQuery } from '../../modules/account-events/repo.js';
import type { GuardianWaits } from '../../modules/guardian/waits-repo.js';
import { CI_BINDING_CONSTRAINT, type IdentityRepo } from '../../modules/identity/repo.js';
import type { IdentityVerifier, VerifiedPerson } from '../../modules/identity/verifier.js';
import type { ClientInfo } from '../client.js';
import type { SecurityActivity } from '../security-activity/recorder.js';

const FIELD = 'identity_verification_id';

/** What identity/start answers: what the app hands to PortOne's SDK. */
export interface StartedVerification {
  identity_verification_id: string;
  store_id: string;
  channel_key: string;
}

/** What identity/verify answers. */
export interface VerifiedIdentity {
  identity: { verified: true; verified_at: string; birth_date: string; adult: boolean };
}

/** What IdentityVerifications is built from; `verifier` and `portone` are undefined without PortOne. */
export interface IdentityVerificationsDeps {
  db: Executor;
  repo: IdentityRepo;
  /** The account's guardian state, which a verified birth date may change (`applyAgeRule`). */
  guardians: GuardianWaits;
  verifier: IdentityVerifier | undefined;
  portone: { storeId: string; channelKey: string } | undefined;
  /** IDENTITY_ONE_ACCOUNT_PER_PERSON. */
  oneAccountPerPerson: boolean;
  /** identity/start and identity/verify per user, together. */
  limit: RateCounter;
  activity: SecurityActivity;
}

/**
 * A signed-in user verifies who they are through PortOne (본인인증): the service issues an id bound to the
 * user (start), the app runs PortOne's SDK with it, and verify asks PortOne and keeps what the verification
 * showed (docs/identity.md). The rules of the binding live here; asking PortOne is IdentityVerifier's.
 */
export class IdentityVerifications {
  constructor(private readonly deps: IdentityVerificationsDeps) {}

  get configured(): boolean {
    return this.deps.portone !== undefined;
  }

  async start(auth: AuthContext): Promise<StartedVerification> {
    const portone = this.portone();
    await this.deps.limit.consume(`user:${auth.user.id}`);
    // PortOne's own example shape; unguessable, though binding it to the user is what protects it.
    const id = `identity-verification-${newId()}`;
    await this.deps.repo.issue(id, auth.user.id);
    return { identity_verification_id: id, store_id: portone.storeId, channel_key: portone.channelKey };
  }

  async verify(
    auth: AuthContext,
    identityVerificationId: string,
    client: ClientInfo,
  ): Promise<VerifiedIdentity> {
    const { verifier } = this.portone();
    const { user } = auth;
    await this.deps.limit.consume(`user:${user.id}`);
    const issued = await this.deps.repo.issued(identityVerificationId, user.id);
    if (!issued) throw ValidationError.notFound(FIELD);
    if (issued.used) throw new ValidationError({ [FIELD]: [{ rule: 'identity_used' }] });
    if (issued.expired) throw new ValidationError({ [FIELD]: [{ rule: 'identity_expired' }] });
    // Asked before any transaction opens: no connection is held while PortOne answers.
    const person = await verifier.fetchVerified(identityVerificationId, FIELD);
    const alert = await this.store(auth, identityVerificationId, person, client);
    this.deps.activity.send(alert);
    return {
      identity: {
        verified: true,
        verified_at: iso(person.verifiedAt),
        birth_date: person.birthDate,
        adult: isAdult(person.birthDate, new Date()) === true,
      },
    };
  }

  /**
   * The operator's release (`accounts identity release`): the account's verification is forgotten, so its
   * person may verify another account. Logged in the account's security log. False when it had none.
   */
  async release(userId: string): Promise<boolean> {
    return writeTransaction(this.deps.db, async (trx) => {
      const released = await this.deps.repo.with(trx).release(userId);
      if (released) {
        await this.deps.activity.recordUnattended(trx, userId, 'identity_released', { by: 'operator' });
      }
      return released;
    });
  }

  private async store(auth: AuthContext, id: string, person: VerifiedPerson, client: ClientInfo) {
    const { user } = auth;
    const bind = this.deps.oneAccountPerPerson;
    try {
      return await writeTransaction(this.deps.db, async (trx) => {
        const repo = this.deps.repo.with(trx);
        if (!(await repo.claim(id, user.id)))
          throw new ValidationError({ [FIELD]: [{ rule: 'identity_used' }] });
        const previous = await repo.find(user.id, true);
        // An account verified as one person stays theirs: another person re-verifying it is refused (an
        // operator's release lets the right person verify it).
        if (previous && !Buffer.from(previous.ci_hash).equals(person.ciHash)) {
          throw new ValidationError({ [FIELD]: [{ rule: 'identity_mismatch' }] });
        }
        if (bind && (await repo.boundElsewhere(person.ciHash, user.id))) throw new IdentityInUseError();
        await repo.store({ userId: user.id, bind, ...person });
        await this.applyAgeRule(trx, user.id, person.birthDate);
        await insertAccountEventQuery(
          trx,
          accountEvent('user.identity_verified', user.id, {
            id: user.id,
            verified_at: iso(person.verifiedAt),
            adult: isAdult(person.birthDate, new Date()) === true,
          }),
        ).execute();
        return this.deps.activity.record({ user, type: 'identity_verified', client }, trx);
      });
    } catch (error) {
      // Two accounts of one person verifying at once: the unique binding lets one through.
      const cause = error instanceof CommitFailedError ? error.cause : error;
      if (isUniqueViolation(cause) && violatedConstraint(cause) === CI_BINDING_CONSTRAINT) {
        throw new IdentityInUseError();
      }
      throw error;
    }
  }

  /**
   * The sign-up's age rule, applied again to the verified birth date, in the verification's transaction:
   * under 14 on today's date in Korea, an account that needed no consent waits for a guardian's from now on
   * (pending, restricted, erased unless one consents within GUARDIAN_CONSENT_DAYS), exactly as a sign-up under
   * 14 does; 14 or over, no guardian's consent is needed, as at a sign-up of that age, so a pending or
   * granted state ends (and the guardian addresses with it). A child already waiting or consented for stays so.
   */
  private async applyAgeRule(trx: Executor, userId: string, birthDate: string): Promise<void> {
    const guardians = this.deps.guardians.with(trx);
    if (needsGuardianConsent(birthDate, new Date())) await guardians.startWaiting(userId);
    else await guardians.stopWaiting(userId);
  }

  /** PortOne's settings and the verifier; the routes refuse first (`unavailable`), this guards other callers. */
  private portone(): { storeId: string; channelKey: string; verifier: IdentityVerifier } {
    const { portone, verifier } = this.deps;
    if (!portone || !verifier) throw new IdentityVerificationNotConfiguredError(PORTONE_VARIABLES);
    return { ...portone, verifier };
  }
}
