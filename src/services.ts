import { DeliveryWake } from './modules/webhooks/delivery-loop.js';
import { buildAccessTokens } from './services/access-tokens.js';
import { buildAccountFlows } from './services/account.js';
import { buildConsoleContent } from './services/console-content.js';
import { buildConsolePromotions } from './services/console-promotions.js';
import { accessRecorder, buildConsoleUsers } from './services/console-users.js';
import { buildDeletion } from './services/deletion.js';
import type { FactoryArgs } from './services/deps.js';
import { buildEmailCodes } from './services/email-codes.js';
import { buildEntities } from './services/entities.js';
import { buildFactorSettings, buildPasskeyProofs } from './services/factors.js';
import { buildGuardian } from './services/guardian.js';
import { buildIdentity } from './services/identity.js';
import { buildNotifications } from './services/notifications.js';
import { buildOperatorTools } from './services/operator.js';
import { buildPhone } from './services/phone.js';
import { buildDataExports } from './services/privacy.js';
import { buildSecurityLog } from './services/security.js';
import { buildSecondFactorSignIn, buildSignIn } from './services/sign-in.js';
import { buildStaff } from './services/staff.js';
import { buildConsoleWebhooks, buildWebhooks } from './services/webhooks.js';

export type { FactoryArgs, ServiceDeps } from './services/deps.js';

import type { Services } from './services/services-type.js';

export type { Services };

/**
 * The services, from the factories of services/ in dependency order, each given its parts by name: the
 * security log, the entity modules, the notifications, sign-in, the deletion, the second factor's sign-in,
 * the passkeys' proofs, the account's flows, the factors' settings, the data export, identity verification,
 * a guardian's consent, the webhooks, the operators' own tools, the access tokens for other services and the
 * staff's console. The server (endpoints.ts), the operator commands (cli/context.ts) and the tests all build
 * theirs here, on buildInfrastructure's deps.
 */
export function buildServices({ config, deps }: FactoryArgs): Services {
  const security = buildSecurityLog({ config, deps });
  const { activity } = security;
  const entities = buildEntities({ config, deps, activity });
  const { usersRepo, users, tokens, hasher, images, posts, oneTimeTokens } = entities;
  const notifications = buildNotifications({ config, deps });
  const signInServices = buildSignIn({
    config,
    deps,
    usersRepo,
    users,
    tokens,
    hasher,
    activity,
    providers: entities.providers,
  });
  const { gate, sessionTokens, secondFactorRepo } = signInServices;
  // Sign-in (and sign-up) by a code mailed to the address, through the same gate and token writer.
  const codes = buildEmailCodes({
    config,
    deps,
    usersRepo,
    users,
    gate,
    sessionTokens,
    loginLimits: signInServices.loginLimits,
    activity,
  });
  // The deletion's cancel checks the password the login's way, under its counters.
  const deletion = buildDeletion({
    config,
    deps,
    usersRepo,
    users,
    tokens,
    posts,
    images,
    oneTimeTokens,
    passwords: signInServices.signIn,
    gate,
    sessionTokens,
    activity,
  });
  const { eraser, scheduledDeletions } = deletion;
  // A right code of a cancel's challenge completes the cancel.
  const secondFactorSignIn = buildSecondFactorSignIn({
    config,
    deps,
    usersRepo,
    users,
    secondFactorRepo,
    challenges: signInServices.challenges,
    secondFactorCodes: signInServices.secondFactorCodes,
    sessionTokens,
    activity,
    deletionCancel: scheduledDeletions,
  });
  const proofs = buildPasskeyProofs({ config, deps });
  const { passkeysRepo, passkeyAssertions } = proofs;
  const flows = buildAccountFlows({
    config,
    deps,
    usersRepo,
    users,
    tokens,
    hasher,
    images,
    providers: entities.providers,
    verifiers: entities.verifiers,
    providerAccounts: entities.providerAccounts,
    consents: entities.consents,
    idempotency: entities.idempotency,
    oneTimeTokens,
    oneTimeCodes: codes.oneTimeCodes,
    gate,
    sessionTokens,
    passkeysRepo,
    passkeyAssertions,
    secondFactorCodes: signInServices.secondFactorCodes,
    secondFactorRepo,
    eraser,
    scheduledDeletions,
    activity,
  });
  const { reauth } = flows;
  const loginLimits = signInServices.loginLimits;
  const { oneTimeCodes } = codes;
  const phone = buildPhone({
    config,
    deps,
    users,
    oneTimeCodes,
    gate,
    sessionTokens,
    loginLimits,
    reauth,
    activity,
  });
  const factors = buildFactorSettings({
    config,
    deps,
    usersRepo,
    users,
    sessionTokens,
    loginLimits: signInServices.loginLimits,
    secondFactorRepo,
    secondFactorCodes: signInServices.secondFactorCodes,
    passkeysRepo,
    webauthnChallenges: proofs.webauthnChallenges,
    ceremonies: proofs.ceremonies,
    passkeyAssertions,
    reauth,
    signInMethods: flows.signInMethods,
    activity,
  });
  const exports = buildDataExports({
    config,
    deps,
    usersRepo,
    users,
    tokensRepo: entities.tokensRepo,
    providerAccounts: entities.providerAccounts,
    postsRepo: entities.postsRepo,
    oneTimeTokens,
    exportsRepo: deletion.exportsRepo,
    exportStore: deletion.exportStore,
    passkeysRepo,
    secondFactorRepo,
    devicesRepo: notifications.devicesRepo,
    securityEventsRepo: security.securityEventsRepo,
    reauth,
    activity,
  });
  const identity = buildIdentity({ config, deps, activity });
  const guardian = buildGuardian({
    config,
    deps,
    consents: entities.consents,
    eraser,
    scheduledDeletions,
    activity,
    identity: identity.guardianIdentity,
  });
  // The account events' delivery passes (the server runs them in the background), and the wake a writer of
  // events calls after its commit so that this instance delivers them at once rather than at its next tick.
  const webhooks = buildWebhooks({ config, deps });
  const tools = buildOperatorTools({ config, deps, secondFactorRepo, activity });
  const accessTokens = buildAccessTokens({ config, deps });
  // The console's staff: their own table, the users' hasher and TOTP code; staff are never users.
  const staff = buildStaff({ config, deps, hasher });
  // The console's users: the services above, behind the staff's permissions, into the access records.
  const consoleUsers = buildConsoleUsers({
    config,
    deps,
    users,
    posts,
    activity,
    verification: flows.verification,
    scheduledDeletions,
    secondFactorReset: tools.secondFactorReset,
    recorder: accessRecorder(tools.accessRecords),
  });
  // The console's posts and consent documents: the same posts and consents services as the operator commands.
  const consoleContent = buildConsoleContent({
    config,
    deps,
    posts,
    consents: entities.consents,
    operations: entities.operations,
    recorder: accessRecorder(tools.accessRecords),
  });
  // The console's webhooks: the CLI's one endpoints service, behind `webhooks.manage`, into the records.
  const consoleWebhooks = buildConsoleWebhooks({
    webhookEndpoints: webhooks.webhookEndpoints,
    recorder: accessRecorder(tools.accessRecords),
  });
  // The console's banners and inspirers: the promotions service `accounts banner|inspirer` calls.
  const consolePromotions = buildConsolePromotions({
    promotions: entities.promotions,
    operations: entities.operations,
    recorder: accessRecorder(tools.accessRecords),
  });
  return {
    securityEvents: security.securityEvents,
    activityCursors: security.activityCursors,
    activity,
    configuredProviders: entities.configuredProviders,
    users,
    operations: entities.operations,
    tokens,
    hasher,
    providers: entities.providers,
    images,
    consents: entities.consents,
    consentReminders: entities.consentReminders,
    promotions: entities.promotions,
    feedCursors: entities.feedCursors,
    posts,
    idempotency: entities.idempotency,
    devices: notifications.devices,
    notifications: notifications.notifications,
    signIn: signInServices.signIn,
    oneTimeCodes: codes.oneTimeCodes,
    emailCodes: codes.emailCodes,
    phoneNumbers: phone.phoneNumbers,
    phoneCodes: phone.phoneCodes,
    secondFactorSignIn,
    secondFactorConfigured: signInServices.secondFactorCodes.configured,
    eraser,
    scheduledDeletions,
    signUp: flows.signUp,
    reauth,
    providerLinks: flows.providerLinks,
    profile: flows.profile,
    profilePictures: flows.profilePictures,
    verification: flows.verification,
    passwordReset: flows.passwordReset,
    deletion: flows.deletion,
    secondFactor: factors.secondFactor,
    passkeySignIn: factors.passkeySignIn,
    passkeys: factors.passkeys,
    dataExports: exports.dataExports,
    exportCursors: exports.exportCursors,
    dataExportJobs: exports.dataExportJobs,
    identity: identity.identity,
    identityVerifier: identity.identityVerifier,
    guardianRequests: guardian.guardianRequests,
    guardianConsents: guardian.guardianConsents,
    guardianDeadline: guardian.guardianDeadline,
    guardianIdentity: guardian.guardianIdentity,
    webhookEndpoints: webhooks.webhookEndpoints,
    webhookDelivery: webhooks.webhookDelivery,
    deliveryWake: new DeliveryWake(),
    mediaReferences: [users, posts, entities.promotions],
    userImport: tools.userImport,
    userList: tools.userList,
    consentHistory: tools.consentHistory,
    secondFactorReset: tools.secondFactorReset,
    accessRecords: tools.accessRecords,
    accessReview: tools.accessReview,
    signingKeys: accessTokens.signingKeys,
    accessTokens: accessTokens.accessTokens,
    serviceCredentials: accessTokens.serviceCredentials,
    staff: staff.staff,
    staffSignIn: staff.staffSignIn,
    staffEnrollment: staff.staffEnrollment,
    userSearch: consoleUsers.userSearch,
    userOverview: consoleUsers.userOverview,
    userActions: consoleUsers.userActions,
    postModeration: consoleContent.postModeration,
    consolePosts: consoleContent.consolePosts,
    consoleConsents: consoleContent.consoleConsents,
    consoleWebhooks: consoleWebhooks.consoleWebhooks,
    consolePromotions,
  };
}
