import type { FastifyInstance } from 'fastify';
import { registerOAuthRoutes } from './account/access-tokens/oauth-routes.js';
import { accessTokenEndpoints } from './account/access-tokens/routes.js';
import { consoleContentEndpoints } from './account/console-content/routes.js';
import { consolePromotionEndpoints } from './account/console-promotions/routes.js';
import { consoleUserEndpoints } from './account/console-users/routes.js';
import { consoleWebhookEndpoints } from './account/console-webhooks/routes.js';
import type { DataExportJobs } from './account/data-export/jobs.js';
import { dataExportEndpoints, registerExportDownload } from './account/data-export/routes.js';
import { accountDeletionEndpoints } from './account/deletion/routes.js';
import type { DueDeletions } from './account/deletion/sweep.js';
import { emailCodeEndpoints } from './account/email-code/routes.js';
import { guardianEndpoints } from './account/guardian/routes.js';
import type { GuardianDeadline } from './account/guardian/sweep.js';
import { identityEndpoints } from './account/identity/routes.js';
import { passkeyEndpoints, passkeySignInEndpoints } from './account/passkeys/routes.js';
import { passwordResetEndpoints } from './account/password-reset/routes.js';
import { phoneEndpoints } from './account/phone/routes.js';
import { phoneCodeEndpoints } from './account/phone-code/routes.js';
import { profileEndpoints, profilePictureEndpoints } from './account/profile/routes.js';
import { providerLinkEndpoint, providerUnlinkEndpoint } from './account/provider-links/routes.js';
import { reauthEndpoints } from './account/reauth/routes.js';
import { secondFactorEndpoints } from './account/second-factor/routes.js';
import { providerSignInEndpoint, signInEndpoints } from './account/sign-in/routes.js';
import { signUpEndpoints } from './account/sign-up/routes.js';
import type { Config } from './config.js';
import { PasskeysUnavailableError } from './errors.js';
import type { AdminRequestServices, AnyAdminEndpoint } from './http/admin-endpoint.js';
import type { AnyEndpoint, RequestServices } from './http/endpoint.js';
import type { RateCounter } from './limits/rate-counter.js';
import { accessRecordEndpoints } from './modules/access-records/routes.js';
import type { AccessRecords } from './modules/access-records/service.js';
import { consentEndpoints } from './modules/consents/routes.js';
import { deviceEndpoints } from './modules/devices/routes.js';
import type { MediaReferences } from './modules/images/orphan-sweep.js';
import type { ImageLimits } from './modules/images/rules.js';
import { emailVerificationEndpoints } from './modules/lifecycle/routes.js';
import { notificationEndpoints } from './modules/notifications/routes.js';
import { postEndpoints } from './modules/posts/routes.js';
import { promotionEndpoints } from './modules/promotions/routes.js';
import { securityEventEndpoints } from './modules/security-events/routes.js';
import type { SecurityEventsService } from './modules/security-events/service.js';
import { staffPasskeyEndpoints } from './modules/staff/passkey-routes.js';
import { staffAdminEndpoints } from './modules/staff/routes.js';
import { tokenEndpoints } from './modules/tokens/routes.js';
import { userEndpoints } from './modules/users/routes.js';
import type { UsersTaken } from './modules/users/rules.js';
import { validateEndpoints } from './modules/validate/routes.js';
import type { WebhookDelivery } from './modules/webhooks/delivery.js';
import type { DeliveryWake } from './modules/webhooks/delivery-loop.js';
import { accessRecorder } from './services/console-users.js';
import type { Infrastructure } from './services/infrastructure.js';
import { buildServices, type Services } from './services.js';
import type { LegalDocuments } from './web/legal.js';
import type { WebSessions } from './web/plugin.js';

/**
 * Builds the services (src/services.ts) on the infrastructure, and every endpoint from them in the order
 * /openapi.json lists them: the API document's order is this list's, so reordering it changes the document.
 */
export function buildEndpoints(
  config: Config,
  infrastructure: Infrastructure,
): {
  endpoints: AnyEndpoint[];
  services: RequestServices;
  mediaReferences: MediaReferences[];
  webSessions: WebSessions;
  /** The consent documents' pages (/legal/…). */
  legalDocuments: LegalDocuments;
  /**
   * The routes that answer something else than an envelope (the data-export download, the JWKS, the token
   * introspection): registered by app/api.ts.
   */
  registerDownloads: (app: FastifyInstance) => void;
  dataExportJobs: DataExportJobs;
  securityEvents: SecurityEventsService;
  /** Erases the accounts whose deletion is due (the server runs it periodically). */
  dueDeletions: DueDeletions;
  /** Erases the children whose guardian did not consent in time (the server runs it periodically). */
  guardianDeadline: GuardianDeadline;
  /** The access records, for the retention's periodic sweep. */
  accessRecords: AccessRecords;
  /** The Idempotency-Key records, for their periodic prune. */
  idempotency: { prune(): Promise<number> };
  /** The account events' delivery to webhook endpoints (the server runs its passes). */
  webhookDelivery: WebhookDelivery;
  /** Told after a commit that wrote events: the delivery loop runs a pass at once. */
  deliveryWake: DeliveryWake;
  /** The admin API's endpoints (/admin/v1, app/admin.ts), built from the same services. */
  admin: { endpoints: AnyAdminEndpoint[]; services: AdminRequestServices };
} {
  const { limits, reads } = infrastructure;
  const services = buildServices({ config, deps: infrastructure });
  const {
    configuredProviders: configured,
    users,
    tokens,
    providerLinks,
    passkeySignIn,
    passkeys,
    signUp,
    signIn,
    secondFactor,
    secondFactorSignIn,
    secondFactorConfigured,
    profile,
    reauth,
    profilePictures,
    verification,
    passwordReset,
    emailCodes,
    phoneNumbers,
    phoneCodes,
    consents,
    devices,
    notifications,
    feedCursors,
    posts,
    promotions,
    deletion,
    dataExports,
    exportCursors,
    dataExportJobs,
    scheduledDeletions,
    eraser,
    idempotency,
    mediaReferences,
    securityEvents,
    activityCursors,
    webhookDelivery,
    deliveryWake,
    guardianRequests,
    guardianConsents,
    guardianDeadline,
    accessRecords,
    guardianIdentity,
    identity,
    accessTokens,
    signingKeys,
    serviceCredentials,
  } = services;
  const imageLimits = { maxBytes: config.fileSizeLimitBytes, maxPixels: config.imageMaxPixels };
  // The rules' uniqueness questions, answered by the users service (the rule engine knows no table).
  const taken: UsersTaken = {
    email: (value, except) => users.taken('email', value, except),
    username: (value, except) => users.taken('username', value, except),
    slug: (value, except) => users.taken('slug', value, except),
  };
  // validate/* asks the same questions where routed reads go (a replica when one is healthy).
  const availability: UsersTaken = {
    email: (value) => users.takenForAvailability('email', value),
    username: (value) => users.takenForAvailability('username', value),
    slug: (value) => users.takenForAvailability('slug', value),
  };
  // An IP-address relying party (derived from PUBLIC_URL): browsers refuse every ceremony, so they say why.
  const { rpId, passkeysAvailable } = config.webauthn;
  const passkeyCeremonies = {
    unavailable: passkeysAvailable ? undefined : () => new PasskeysUnavailableError(rpId),
  };
  const endpoints = [
    ...validateEndpoints(limits.validateIp, availability),
    ...signUpEndpoints(
      signUp,
      {
        // Only configured providers are register types; every REGISTER_PROVIDERS name keeps its required_if
        // fields, so the 422 for a missing `<name>_user_id` reads the same whether or not it is configured.
        types: [
          'email',
          'email_code',
          ...config.providers.registerNames.filter((name) => configured.includes(name)),
        ],
        providerNames: config.providers.registerNames,
        image: imageLimits,
        taken,
        birthDateRequired: config.guardian.ageGate === 'birth_date',
      },
      limits.registerIp,
    ),
    ...signInEndpoints(signIn, limits.loginIp, (email) => users.accountByEmail(email)),
    // user/get lists the required documents the user has yet to agree to (their current versions).
    ...userEndpoints(users, (auth, locale) => consents.pendingFor(auth, locale)),
    ...guardianEndpoints(guardianRequests, guardianConsents, guardianIdentity),
    ...secondFactorEndpoints(secondFactor, secondFactorSignIn, {
      providers: configured,
      configured: secondFactorConfigured,
      loginLimit: limits.loginIp,
    }),
    ...profileEndpoints(profile, configured, taken),
    ...reauthEndpoints(reauth, configured),
    ...accountDeletionEndpoints(deletion, scheduledDeletions, configured, limits.loginIp),
    ...dataExportEndpoints(dataExports, exportCursors, configured),
    ...profilePictureEndpoints(profilePictures, imageLimits, limits.imageUpload),
    ...deviceEndpoints(devices),
    ...notificationEndpoints(notifications),
    ...tokenEndpoints(tokens),
    ...accessTokenEndpoints(accessTokens),
    ...securityEventEndpoints(securityEvents, activityCursors),
    ...identityEndpoints(identity),
    // Each known provider's login beside its link (an unconfigured one's answer 503 provider_not_configured),
    // then an unlink for every known provider (a link to one the deployment has since switched off can still
    // be removed): the API document's order.
    ...config.providers.names.flatMap((name) => [
      providerSignInEndpoint(signIn, name, limits.loginIp, configured),
      providerLinkEndpoint(providerLinks, name, configured),
    ]),
    ...config.providers.names.map((name) => providerUnlinkEndpoint(providerLinks, name, configured)),
    ...passkeySignInEndpoints(passkeySignIn, limits.loginIp, passkeyCeremonies),
    ...passkeyEndpoints(passkeys, configured, passkeyCeremonies),
    ...postEndpoints(posts, feedCursors, imageLimits, limits.imageUpload),
    ...promotionEndpoints(promotions),
    ...emailVerificationEndpoints(verification),
    ...passwordResetEndpoints(passwordReset, { forgotIp: limits.passwordForgotIp }),
    ...emailCodeEndpoints(emailCodes, {
      requestLimit: limits.emailCodeIp,
      loginLimit: limits.loginIp,
    }),
    ...phoneEndpoints(phoneNumbers, configured),
    ...phoneCodeEndpoints(phoneCodes, limits.loginIp),
    ...consentEndpoints(consents),
  ];
  return {
    endpoints,
    services: { authenticate: (token) => tokens.authenticate(token), wrote: (userId) => reads.wrote(userId) },
    mediaReferences,
    registerDownloads: (app) => {
      registerExportDownload(app, config.apiVersions, dataExports);
      registerOAuthRoutes(app, {
        accessTokens,
        keys: signingKeys,
        credentials: serviceCredentials,
        limit: limits.introspection,
      });
    },
    dataExportJobs,
    securityEvents,
    dueDeletions: eraser,
    guardianDeadline,
    accessRecords,
    idempotency,
    webhookDelivery,
    deliveryWake,
    webSessions: { authenticate: (token) => tokens.authenticate(token), revoke: (id) => tokens.revoke(id) },
    legalDocuments: consents,
    admin: buildAdminEndpoints(services, limits.loginIp, imageLimits),
  };
}

/**
 * The admin API's endpoints (/admin/v1, app/admin.ts) from the same services as the app's, in the order
 * /admin/openapi.json lists them: staff and sign-in, the users, the access records, the content, the webhooks.
 */
export function buildAdminEndpoints(
  services: Services,
  loginLimit: RateCounter,
  imageLimits: ImageLimits,
): {
  endpoints: AnyAdminEndpoint[];
  services: AdminRequestServices;
} {
  const {
    staffSignIn,
    staffEnrollment,
    staff,
    userSearch,
    userOverview,
    userActions,
    accessRecords,
    accessReview,
  } = services;
  // One recorder for every console route: a refusal by a route's permission is written as its service's would be.
  const recorder = accessRecorder(accessRecords);
  return {
    endpoints: [
      ...staffAdminEndpoints(staffSignIn, staffEnrollment, staff, loginLimit),
      ...staffPasskeyEndpoints(staffSignIn, staffEnrollment, loginLimit),
      ...consoleUserEndpoints({
        userSearch,
        userOverview,
        userActions,
        recorder,
      }),
      ...accessRecordEndpoints(accessRecords, accessReview),
      ...consoleContentEndpoints({
        consolePosts: services.consolePosts,
        consoleConsents: services.consoleConsents,
        recorder,
      }),
      ...consoleWebhookEndpoints(services.consoleWebhooks, recorder),
      ...consolePromotionEndpoints(services.consolePromotions, imageLimits, recorder),
    ],
    services: {
      authenticate: (token) => staffSignIn.authenticate(token),
      admitAddress: (ip) => staffSignIn.admitAddress(ip),
    },
  };
}
