import { userExportFiles } from './account/data-export/erasure.js';
import { DataExportJobs } from './account/data-export/jobs.js';
import { ExportLinks } from './account/data-export/links.js';
import { DataExportsRepo } from './account/data-export/repo.js';
import { accountSections } from './account/data-export/sections.js';
import { DataExports } from './account/data-export/service.js';
import { AccountEraser } from './account/deletion/eraser.js';
import { ScheduledDeletions } from './account/deletion/scheduled.js';
import { AccountDeletion } from './account/deletion/service.js';
import { PasskeyAssertions } from './account/passkeys/assertions.js';
import { WebAuthnCeremonies } from './account/passkeys/ceremonies.js';
import { PasskeyManagement } from './account/passkeys/management.js';
import { PasskeySignIn } from './account/passkeys/sign-in.js';
import { PasswordResetService } from './account/password-reset/service.js';
import { ProfilePictureService } from './account/profile/picture.js';
import { ProfileService } from './account/profile/service.js';
import { ProviderLinks } from './account/provider-links/service.js';
import { Reauthentication } from './account/reauth/service.js';
import { SecondFactorCodes } from './account/second-factor/codes.js';
import { SecondFactorSettings } from './account/second-factor/settings.js';
import { SecondFactorSignIn } from './account/second-factor/sign-in.js';
import { resetPageUrl, SecurityActivity } from './account/security-activity/recorder.js';
import { SignIn } from './account/sign-in/service.js';
import { SignInTokens } from './account/sign-in/tokens.js';
import { SignInMethodsReader } from './account/sign-in-methods.js';
import { SignUp } from './account/sign-up/service.js';
import type { Config } from './config.js';
import type { DatabaseHandle } from './db/client.js';
import { ReadRouting } from './db/read-routing.js';
import type { HashingPool } from './lib/hashing-pool.js';
import { PasswordHasher } from './lib/passwords.js';
import { SecretBox } from './lib/secret-box.js';
import type { RateLimits } from './limits/rate-counter.js';
import type { Mailer } from './mail/mailer.js';
import { OutboxRepo } from './mail/outbox-repo.js';
import type { AppMetrics } from './metrics/metrics.js';
import { ConsentReminders } from './modules/consents/reminders.js';
import { ConsentsRepo } from './modules/consents/repo.js';
import { ConsentsService } from './modules/consents/service.js';
import { DevicesRepo } from './modules/devices/repo.js';
import { DevicesService } from './modules/devices/service.js';
import { IdempotencyRepo } from './modules/idempotency/repo.js';
import { IdempotencyService } from './modules/idempotency/service.js';
import type { MediaReferences } from './modules/images/orphan-sweep.js';
import { type CleanupFailureReporter, ImagesService } from './modules/images/service.js';
import { OneTimeTokensRepo } from './modules/lifecycle/repo.js';
import { EmailVerificationService } from './modules/lifecycle/verification-service.js';
import { NotificationOutboxRepo } from './modules/notifications/repo.js';
import { NotificationsService } from './modules/notifications/service.js';
import { WebAuthnChallengesRepo } from './modules/passkeys/challenges-repo.js';
import { PasskeysRepo } from './modules/passkeys/repo.js';
import { FeedCursorCodec } from './modules/posts/cursor.js';
import { PostsRepo } from './modules/posts/repo.js';
import { PostsService } from './modules/posts/service.js';
import { BannersRepo, InspirersRepo } from './modules/promotions/repo.js';
import { PromotionsService } from './modules/promotions/service.js';
import { ProviderAccountsRepo } from './modules/providers/repo.js';
import { ProvidersService } from './modules/providers/service.js';
import { ChallengesRepo } from './modules/second-factor/challenges-repo.js';
import { SecondFactorRepo } from './modules/second-factor/repo.js';
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
import type { PushLogger } from './push/transport.js';
import { createExportStore } from './storage/export-store.js';
import type { MediaStorage } from './storage/media-storage.js';

/** What the services need besides the config: made by buildApp (or by a test) once per instance. */
export interface ServiceDeps {
  database: DatabaseHandle;
  storage: MediaStorage;
  reportCleanupFailure?: CleanupFailureReporter;
  limits: RateLimits;
  log: PushLogger;
  metrics: AppMetrics;
  mailer: Mailer;
  /** The config's argon2 hasher unless given (a test may hand in one that interleaves work with a verify). */
  hasher?: PasswordHasher;
  /** The processes the default hasher runs argon2 in; without one it hashes on this process's thread pool. */
  hashing?: HashingPool;
}

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
  const images = new ImagesService(deps.storage, config.imageMaxPixels, deps.reportCleanupFailure);
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
  const consents = new ConsentsService(db, consentsRepo);
  // Re-confirmation happens on the web profile page.
  const consentReminders = new ConsentReminders(db, consentsRepo, deps.mailer, {
    link: `${config.mail.publicUrl}/profile`,
  });
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
  // The second factor: secrets sealed with SECRETS_KEY (without it, its routes answer 503); a sign-in whose
  // first factor proved right is handed to it. Wrong codes count per account like failed logins.
  const { secretsKey } = config.secondFactor;
  const secondFactorCodes = new SecondFactorCodes(secretsKey ? SecretBox.withKey(secretsKey) : undefined);
  const secondFactorRepo = new SecondFactorRepo(db);
  const secondFactorSignIn = new SecondFactorSignIn(
    db,
    secondFactorRepo,
    new ChallengesRepo(db),
    secondFactorCodes,
    new SignInTokens(db, usersRepo, tokens, hasher),
    usersRepo,
    users,
    limits.loginAccount,
  );
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
  // Passkeys: the ceremonies of this relying party, and the assertions sign-in and re-authentication check.
  const passkeysRepo = new PasskeysRepo(db);
  const webauthnChallenges = new WebAuthnChallengesRepo(db);
  const ceremonies = new WebAuthnCeremonies(config.webauthn);
  const passkeyAssertions = new PasskeyAssertions(webauthnChallenges, passkeysRepo, ceremonies);
  // Wrong re-authentication proofs (a password, a provider token, a passkey) count per account on the
  // login-failure limit.
  const reauth = new Reauthentication(
    hasher,
    verifiers,
    providerAccounts,
    limits.loginFailures,
    passkeyAssertions,
  );
  const secondFactor = new SecondFactorSettings(
    db,
    secondFactorRepo,
    secondFactorCodes,
    reauth,
    limits.loginFailures,
    config.secondFactor.issuer,
  );
  const signInMethods = new SignInMethodsReader(usersRepo, providerAccounts, passkeysRepo);
  const providerLinks = new ProviderLinks(
    db,
    providerAccounts,
    providers,
    users,
    reauth,
    activity,
    signInMethods,
  );
  const passkeySignIn = new PasskeySignIn(
    passkeyAssertions,
    passkeysRepo,
    usersRepo,
    users,
    new SignInTokens(db, usersRepo, tokens, hasher),
    { loginFailures: limits.loginFailures, accountFailures: limits.loginAccount },
  );
  const passkeys = new PasskeyManagement(
    db,
    passkeysRepo,
    webauthnChallenges,
    ceremonies,
    passkeyAssertions,
    reauth,
    signInMethods,
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
  // Data exports: built in the background from the entities' repos, kept beside the media.
  const exportsRepo = new DataExportsRepo(db);
  const exportStore = createExportStore(deps.storage, config.dataExport.dir);
  const exportLinks = new ExportLinks(
    () => exportsRepo.linkSecret(),
    `${config.mail.publicUrl}/${config.apiVersions[0] ?? 'v1'}`,
  );
  const dataExportJobs = new DataExportJobs(
    db,
    exportsRepo,
    (id) => usersRepo.findById(id),
    {
      sections: accountSections({
        users,
        devices: devicesRepo,
        tokens: tokensRepo,
        providers: providerAccounts,
      }),
      postsPage: (userId, after, limit) => postsRepo.authoredPage(userId, after, limit),
      likesPage: (userId, after, limit) => postsRepo.likesPage(userId, after, limit),
      media: deps.storage,
    },
    exportStore,
    exportLinks,
    deps.mailer,
    config.dataExport,
    deps.log,
  );
  const dataExports = new DataExports(
    db,
    exportsRepo,
    reauth,
    dataExportJobs,
    exportStore,
    exportLinks,
    limits.dataExport,
  );
  const eraser = new AccountEraser(
    db,
    usersRepo,
    posts,
    images,
    new OutboxRepo(db),
    userExportFiles(exportsRepo, exportStore, deps.reportCleanupFailure ?? (() => {})),
  );
  // A deletion waits DELETION_GRACE_DAYS (the user can take it back); the cancel's password check is the
  // login's, under its counters.
  const scheduledDeletions = new ScheduledDeletions(
    db,
    usersRepo,
    users,
    tokens,
    posts,
    oneTimeTokens,
    deps.mailer,
    signIn,
    { graceDays: config.deletion.graceDays, cancelUrlTemplate: config.mail.deletionCancelUrl },
  );
  const deletion = new AccountDeletion(eraser, scheduledDeletions, reauth);
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
    secondFactorConfigured: secondFactorCodes.configured,
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
