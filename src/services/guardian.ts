import type { AccountEraser } from '../account/deletion/eraser.js';
import type { ScheduledDeletions } from '../account/deletion/scheduled.js';
import { childAgreements } from '../account/guardian/agreements.js';
import { type GuardianIdentityCheck, unconfiguredGuardianIdentity } from '../account/guardian/identity.js';
import { GuardianRequests } from '../account/guardian/requests.js';
import { GuardianConsents } from '../account/guardian/service.js';
import { GuardianDeadline } from '../account/guardian/sweep.js';
import type { SecurityActivity } from '../account/security-activity/recorder.js';
import type { ConsentsService } from '../modules/consents/service.js';
import { GuardianRepo } from '../modules/guardian/repo.js';
import type { FactoryArgs } from './deps.js';

/** What a guardian's consent is built from. */
export interface GuardianParts extends FactoryArgs {
  consents: ConsentsService;
  eraser: AccountEraser;
  scheduledDeletions: ScheduledDeletions;
  activity: SecurityActivity;
  /** A guardian's carrier verification, where PortOne is configured (services/identity.ts). */
  identity?: GuardianIdentityCheck | undefined;
}

/** A guardian's consent for a child: the request, the answer, the deadline's sweep. */
export interface GuardianServices {
  guardianRepo: GuardianRepo;
  guardianRequests: GuardianRequests;
  guardianConsents: GuardianConsents;
  /** Erases the children whose guardian did not consent in time (the server runs it periodically). */
  guardianDeadline: GuardianDeadline;
  /** How a guardian proves who they are: a test's, PortOne's, or the mailed link alone. */
  guardianIdentity: GuardianIdentityCheck;
}

/** A child's request to a guardian, the guardian's answer, and the deadline's sweep (docs/identity.md). */
export function buildGuardian(parts: GuardianParts): GuardianServices {
  const { config, deps } = parts;
  const db = deps.database.db;
  const repo = new GuardianRepo(db);
  const settings = { consentUrl: config.guardian.consentUrl, consentDays: config.guardian.consentDays };
  // A test's own implementation, else PortOne's where it is configured, else the mailed link alone.
  const identity = deps.guardianIdentity ?? parts.identity ?? unconfiguredGuardianIdentity;
  const guardianRequests = new GuardianRequests({
    db,
    repo,
    mailer: deps.mailer,
    activity: parts.activity,
    settings,
  });
  const guardianConsents = new GuardianConsents({
    db,
    repo,
    mailer: deps.mailer,
    activity: parts.activity,
    settings,
    identity,
    agreements: childAgreements(parts.consents),
    eraser: parts.eraser,
    deletions: parts.scheduledDeletions,
    log: deps.log,
  });
  const guardianDeadline = new GuardianDeadline(repo, parts.eraser, settings.consentDays);
  return {
    guardianRepo: repo,
    guardianRequests,
    guardianConsents,
    guardianDeadline,
    guardianIdentity: identity,
  };
}
