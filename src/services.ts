import { PasswordResetService } from './account/password-reset/service.js';
import { ProfilePictureService } from './account/profile/picture.js';
import { ProfileService } from './account/profile/service.js';
import { ProviderLinks } from './account/provider-links/service.js';
import { Reauthentication } from './account/reauth/service.js';
import { resetPageUrl, SecurityActivity } from './account/security-activity/recorder.js';
import { SignIn } from './account/sign-in/service.js';
import { SignInMethodsReader } from './account/sign-in-methods.js';
import { SignUp } from './account/sign-up/service.js';
import type { Config } from './config.js';
import { ReadRouting } from './db/read-routing.js';
import { PasswordHasher } from './lib/passwords.js';
import { ConsentReminders } from './modules/consents/reminders.js';
import { ConsentRemindersRepo } from './modules/consents/reminders-repo.js';
import { ConsentsRepo } from './modules/consents/repo.js';
import { ConsentsService } from './modules/consents/service.js';
import { DevicesRepo } from './modules/devices/repo.js';
import { DevicesService } from './modules/devices/service.js';
import { IdempotencyRepo } from './modules/idempotency/repo.js';
import { IdempotencyService } from './modules/idempotency/service.js';
import type { MediaReferences } from './modules/images/orphan-sweep.js';
import { ImagesService } from './modules/images/service.js';
import { OneTimeTokensRepo } from './modules/lifecycle/repo.js';
import { EmailVerificationService } from './modules/lifecycle/verification-service.js';
import { NotificationOutboxRepo } from './modules/notifications/repo.js';
import { NotificationsService } from './modules/notifications/service.js';
import { FeedCursorCodec } from './modules/posts/cursor.js';
import { PostsRepo } from './modules/posts/repo.js';
import { PostsService } from './modules/posts/service.js';
import { BannersRepo, InspirersRepo } from './modules/promotions/repo.js';
import { PromotionsService } from './modules/promotions/service.js';
import { ProviderAccountsRepo } from './modules/providers/repo.js';
import { ProvidersService } from './modules/providers/service.js';
import { ActivityCursorCodec } from './modules/security-events/cursor.js';
import { SecurityEventsRepo } from './modules/security-events/repo.js';
import { SecurityEventsService } from './modules/security-events/service.js';
import { TokensRepo } from './modules/tokens/repo.js';
import { TokensService } from './modules/tokens/service.js';
import { UserOperationsService } from './modules/users/operator-service.js';
import { UsersRepo } from './modules/users/repo.js';
import { UsersService } from './modules/users/service.js';
import { buildVerifiers } from './providers/index.js';
import { createPushTransport } from './push/create-transport.js';
import type { ServiceDeps } from './services/deps.js';
import { buildFactorProofs, buildFactorSettings } from './services/factors.js';
import { buildPrivacy } from './services/privacy.js';

export type { ServiceDeps } from './services/deps.js';

/** Every service of one instance, built from real repositories: what endpoints and tests are made from. */
export type Services = ReturnType<typeof buildServices>;

/**
 * Builds repos from the database, the entity services from repos, and the account layer's use cases from
 * both, in that order (endpoints are built from these in app.ts).
 */
export function buildServices(config: Config, deps: ServiceDeps) {
  const db = deps.database.db;
  const { limits } = deps;
  // The public reads go to a healthy replica, unless the reader just wrote (db/read-routing.ts).
  const reads = new ReadRouting(db, deps.database.replicas);

  // The security activity log first: the entity modules below that log an event receive it.
  const securityEventsRepo = new SecurityEventsRepo(db);
  const activityCursors = new ActivityCursorCodec(() => securityEventsRepo.cursorKey());
  const securityEvents = new SecurityEventsService(securityEventsRepo, activityCursors);
  const activity = new SecurityActivity(
    db,
    securityEvents,
    deps.mailer,
    {
      alerts: config.securityEvents.alerts,
      resetPageUrl: resetPageUrl(config.mail.passwordResetUrl),
    },
    (error, what) => deps.log.error({ err: error, event: what }, 'security event not recorded'),
  );

  // The entity modules: each from its repo and what it declares it needs.
  const usersRepo = new UsersRepo(db);
  const providerAccounts = new ProviderAccountsRepo(db);
  // The `providers` of the user object are read from the links themselves.
  const users = new UsersService(usersRepo, providerAccounts, reads);
  const tokensRepo = new TokensRepo(db);
  // A session revoked from the session list is logged (logout is not: docs/SECURITY.md says why).
  const tokens = new TokensService(tokensRepo, config.tokenTtlDays, {
    tokenRevoked: async (user, tokenId, client) => {
      await activity.record({ user, type: 'token_revoked', client, details: { token_id: tokenId } });
    },
  });
  const hasher = deps.hasher ?? new PasswordHasher(config.argon2, deps.metrics.hashObserver, deps.hashing);
  const verifiers = buildVerifiers(config.providers, deps.metrics.verificationObserver);
  const providers = new ProvidersService(providerAccounts, verifiers);
  const configuredProviders = config.providers.configured.map((provider) => provider.name);
  const images = new ImagesService(
    deps.storage,
    deps.imageRenderer,
    config.imageMaxPixels,
    deps.reportCleanupFailure,
  );
  const oneTimeTokens = new OneTimeTokensRepo(db);
  const verification = new EmailVerificationService(
    db,
    oneTimeTokens,
    users,
    deps.mailer,
    { ttlMs: config.mail.emailVerifyTtlMs, urlTemplate: config.mail.emailVerifyUrl },
    limits.emailResend,
    {
      emailVerified: async (trx, user, client) => {
        await activity.record({ user, type: 'email_verified', client }, trx);
      },
    },
  );
  const consentsRepo = new ConsentsRepo(db);
  // A consent change is logged in its transaction (it has no alert).
  const consents = new ConsentsService(db, consentsRepo, {
    consentChanged: async (trx, user, client, change) => {
      await activity.record({ user, type: 'consent_changed', client, details: change }, trx);
    },
  });
  // Re-confirmation happens on the web profile page; a withdrawal by expiry is logged like the user's own.
  const consentReminders = new ConsentReminders(
    db,
    consentsRepo,
    new ConsentRemindersRepo(db),
    deps.mailer,
    { link: `${config.mail.publicUrl}/profile` },
    {
      consentChanged: (trx, userId, details) =>
        activity.recordUnattended(trx, userId, 'consent_changed', details),
    },
  );
  const devicesRepo = new DevicesRepo(db);
  const devices = new DevicesService(db, devicesRepo);
  const operations = new UserOperationsService(usersRepo, users);
  const promotions = new PromotionsService(
    new BannersRepo(db),
    new InspirersRepo(db),
    operations,
    reads,
    config.bannerLinkSchemes,
  );
  const push = createPushTransport(config.push, new NotificationOutboxRepo(db), deps.log);
  const notifications = new NotificationsService(devices, push, (details, error) =>
    deps.log.error({ err: error, ...details }, 'dropping a dead push token failed'),
  );
  const postsRepo = new PostsRepo(db);
  const feedCursors = new FeedCursorCodec(() => postsRepo.secret('feed_cursor'));
  // Idempotency-Key answers, read and written on the primary only; outcomes: a lost answer's check.
  const idempotency = new IdempotencyService(new IdempotencyRepo(db));
  const { outcomes } = deps.database;
  const posts = new PostsService(db, postsRepo, images, feedCursors, reads, idempotency, outcomes);

  // The account layer: use cases that span entities.
  const signUp = new SignUp(
    db,
    usersRepo,
    users,
    tokens,
    hasher,
    images,
    providers,
    verification,
    activity,
    consents,
    idempotency,
    outcomes,
  );
  const factorParts = { usersRepo, users, tokens, hasher, activity };
  const proofs = buildFactorProofs(config, deps, factorParts);
  const { secondFactorSignIn, passkeyAssertions } = proofs;
  // Failed logins per (email or provider identity, IP), and per account (RATE_LIMIT_LOGIN_ACCOUNT).
  const signIn = new SignIn(
    db,
    usersRepo,
    users,
    tokens,
    providers,
    hasher,
    { loginFailures: limits.loginFailures, accountFailures: limits.loginAccount },
    activity,
    secondFactorSignIn,
  );
  // Wrong re-authentication proofs (a password, a provider token, a passkey) count per account on the
  // login-failure limit.
  const reauth = new Reauthentication(
    hasher,
    verifiers,
    providerAccounts,
    limits.loginFailures,
    passkeyAssertions,
  );
  const signInMethods = new SignInMethodsReader(usersRepo, providerAccounts, proofs.passkeysRepo);
  const providerLinks = new ProviderLinks(
    db,
    providerAccounts,
    providers,
    users,
    reauth,
    activity,
    signInMethods,
  );
  const { secondFactor, passkeySignIn, passkeys } = buildFactorSettings(
    config,
    deps,
    { ...factorParts, reauth, signInMethods },
    proofs,
  );
  const profile = new ProfileService(db, usersRepo, users, tokens, hasher, reauth, verification, activity);
  const profilePictures = new ProfilePictureService(db, usersRepo, users, images);
  const passwordReset = new PasswordResetService(
    db,
    oneTimeTokens,
    usersRepo,
    users,
    tokens,
    hasher,
    deps.mailer,
    { ttlMs: config.mail.passwordResetTtlMs, urlTemplate: config.mail.passwordResetUrl },
    limits.passwordForgotEmail,
    activity,
    secondFactorSignIn,
  );
  const privacy = buildPrivacy(config, deps, {
    usersRepo,
    users,
    devicesRepo,
    tokensRepo,
    tokens,
    providerAccounts,
    postsRepo,
    posts,
    images,
    oneTimeTokens,
    reauth,
    signIn,
    activity,
    securityEventsRepo,
    passkeysRepo: proofs.passkeysRepo,
    secondFactorRepo: proofs.secondFactorRepo,
  });
  const { dataExports, exportCursors, dataExportJobs, eraser, scheduledDeletions, deletion } = privacy;
  // Every table that references stored media: files none of them references are swept.
  const mediaReferences: MediaReferences[] = [users, posts];
  return {
    reads,
    configuredProviders,
    users,
    tokens,
    hasher,
    reauth,
    providers,
    providerLinks,
    passkeySignIn,
    passkeys,
    images,
    signUp,
    signIn,
    secondFactor,
    secondFactorSignIn,
    secondFactorConfigured: proofs.secondFactorCodes.configured,
    profile,
    profilePictures,
    verification,
    passwordReset,
    consents,
    consentReminders,
    devices,
    operations,
    promotions,
    notifications,
    feedCursors,
    posts,
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
    activity,
  };
}
