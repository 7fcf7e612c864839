import { PortOneGuardianIdentity } from '../account/guardian/portone-identity.js';
import { IdentityVerifications } from '../account/identity/service.js';
import type { SecurityActivity } from '../account/security-activity/recorder.js';
import { deriveKey } from '../lib/derived-key.js';
import { GuardianWaits } from '../modules/guardian/waits-repo.js';
import { PortOneGateway } from '../modules/identity/portone.js';
import { IdentityRepo } from '../modules/identity/repo.js';
import { IdentityVerifier } from '../modules/identity/verifier.js';
import type { FactoryArgs } from './deps.js';

/** What identity verification is made from. */
export interface IdentityParts extends FactoryArgs {
  activity: SecurityActivity;
}

/** Identity verification: the signed-in user's, and a guardian's through the same verifier. */
export interface IdentityServices {
  identityRepo: IdentityRepo;
  /** PortOne's verifier; none without PORTONE_* (the routes answer 503). */
  identityVerifier: IdentityVerifier | undefined;
  identity: IdentityVerifications;
  /** A guardian's carrier verification, where PortOne is configured. */
  guardianIdentity: PortOneGuardianIdentity | undefined;
}

/**
 * Identity verification through PortOne: the verifier (asking PortOne; the guardian's consent asks it too)
 * and the signed-in user's verifications. Without PORTONE_* there is no verifier and the routes answer 503.
 */
export function buildIdentity(parts: IdentityParts): IdentityServices {
  const { config, deps } = parts;
  const db = deps.database.db;
  const { portone, oneAccountPerPerson } = config.identity;
  const { secretsKey } = config.secondFactor;
  const identityRepo = new IdentityRepo(db);
  // config/identity.ts refuses PortOne without SECRETS_KEY, so both are set or the verifier is off.
  const identityVerifier =
    portone && secretsKey
      ? new IdentityVerifier(new PortOneGateway(portone, deps.tracing), deriveKey(secretsKey, 'identity ci'))
      : undefined;
  const identity = new IdentityVerifications({
    db,
    repo: identityRepo,
    guardians: new GuardianWaits(db),
    verifier: identityVerifier,
    portone:
      identityVerifier && portone ? { storeId: portone.storeId, channelKey: portone.channelKey } : undefined,
    oneAccountPerPerson,
    limit: deps.limits.identityVerification,
    activity: parts.activity,
  });
  // A guardian's verification: the same verifier, its ids bound to the guardian's link instead of a user.
  const guardianIdentity =
    identityVerifier && portone && secretsKey
      ? new PortOneGuardianIdentity(
          identityVerifier,
          { storeId: portone.storeId, channelKey: portone.channelKey },
          deriveKey(secretsKey, 'guardian identity'),
        )
      : undefined;
  return { identityRepo, identityVerifier, identity, guardianIdentity };
}
