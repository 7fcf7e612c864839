import type { Config } from './config.js';
import { ReadRouting } from './db/read-routing.js';
import type { MediaReferences } from './modules/images/orphan-sweep.js';
import { DeliveryWake } from './modules/webhooks/delivery-loop.js';
import { buildAccountFlows } from './services/account.js';
import { buildDeletion } from './services/deletion.js';
import type { ServiceDeps } from './services/deps.js';
import { buildEntities } from './services/entities.js';
import { buildFactorSettings, buildPasskeyProofs } from './services/factors.js';
import { buildGuardian } from './services/guardian.js';
import { buildIdentity } from './services/identity.js';
import { buildNotifications } from './services/notifications.js';
import { buildDataExports } from './services/privacy.js';
import { buildSecurityLog } from './services/security.js';
import { buildSecondFactorSignIn, buildSignIn } from './services/sign-in.js';
import { buildWebhooks } from './services/webhooks.js';

export type { ServiceDeps } from './services/deps.js';

/** Every service of one instance, built from real repositories: what endpoints and tests are made from. */
export type Services = ReturnType<typeof buildServices>;

/**
 * The server's services, from the factories of services/ in dependency order: the security log, the entity
 * modules, sign-in, the deletion, the passkeys' proofs, the account's flows, the factors' settings and the
 * data export (endpoints are built from these in endpoints.ts). The operator commands build theirs from the
 * same factories (services/operator.ts).
 */
export function buildServices(config: Config, deps: ServiceDeps) {
  // The public reads go to a healthy replica, unless the reader just wrote (db/read-routing.ts).
  const reads = new ReadRouting(deps.database.db, deps.database.replicas);
  const { securityEventsRepo, securityEvents, activityCursors, activity } = buildSecurityLog(config, deps);
  const entities = buildEntities(config, deps, { activity, reads });
  const { devicesRepo, devices, notifications } = buildNotifications(config, deps);
  const signInFlows = buildSignIn(config, deps, { ...entities, activity });
  const { signIn, gate } = signInFlows;
  // The deletion's cancel checks the password the login's way, under its counters.
  const deletionParts = buildDeletion(config, deps, { ...entities, passwords: signIn, gate, activity });
  const { eraser, scheduledDeletions } = deletionParts;
  // A right code of a cancel's challenge completes the cancel.
  const secondFactorSignIn = buildSecondFactorSignIn(deps, {
    ...entities,
    ...signInFlows,
    activity,
    deletionCancel: scheduledDeletions,
  });
  const proofs = buildPasskeyProofs(config, deps);
  const flows = buildAccountFlows(config, deps, {
    ...entities,
    ...proofs,
    gate,
    secondFactorCodes: signInFlows.secondFactorCodes,
    secondFactorRepo: signInFlows.secondFactorRepo,
    eraser,
    scheduledDeletions,
    activity,
  });
  const { reauth, signInMethods } = flows;
  const { secondFactor, passkeySignIn, passkeys } = buildFactorSettings(config, deps, {
    ...entities,
    ...signInFlows,
    ...proofs,
    reauth,
    signInMethods,
    activity,
  });
  const { dataExports, exportCursors, dataExportJobs } = buildDataExports(config, deps, {
    ...entities,
    ...deletionParts,
    ...proofs,
    ...signInFlows,
    devicesRepo,
    securityEventsRepo,
    reauth,
    activity,
  });
  const { identity, identityVerifier, guardianIdentity } = buildIdentity(config, deps, { activity });
  const guardian = buildGuardian(config, deps, {
    ...entities,
    eraser,
    scheduledDeletions,
    activity,
    identity: guardianIdentity,
  });
  const { users, posts } = entities;
  // The account events' delivery passes (the server runs them in the background), and the wake a writer of
  // events calls after its commit so that this instance delivers them at once rather than at its next tick.
  const { webhookDelivery } = buildWebhooks(config, deps);
  const deliveryWake = new DeliveryWake();
  // Every table that references stored media: files none of them references are swept.
  const mediaReferences: MediaReferences[] = [users, posts];
  return {
    reads,
    configuredProviders: entities.configuredProviders,
    users,
    tokens: entities.tokens,
    hasher: entities.hasher,
    reauth,
    providers: entities.providers,
    providerLinks: flows.providerLinks,
    passkeySignIn,
    passkeys,
    images: entities.images,
    signUp: flows.signUp,
    signIn,
    secondFactor,
    secondFactorSignIn,
    secondFactorConfigured: signInFlows.secondFactorCodes.configured,
    profile: flows.profile,
    profilePictures: flows.profilePictures,
    verification: flows.verification,
    passwordReset: flows.passwordReset,
    consents: entities.consents,
    consentReminders: entities.consentReminders,
    devices,
    operations: entities.operations,
    promotions: entities.promotions,
    notifications,
    feedCursors: entities.feedCursors,
    posts,
    deletion: flows.deletion,
    dataExports,
    exportCursors,
    dataExportJobs,
    scheduledDeletions,
    eraser,
    idempotency: entities.idempotency,
    mediaReferences,
    securityEvents,
    activityCursors,
    activity,
    webhookDelivery,
    deliveryWake,
    ...guardian,
    identity,
    identityVerifier,
  };
}
