import { AccountEraser } from './account/deletion/eraser.js';
import { AccountDeletion } from './account/deletion/service.js';
import { PasswordResetService } from './account/password-reset/service.js';
import { ProfilePictureService } from './account/profile/picture.js';
import { ProfileService } from './account/profile/service.js';
import { ProviderLinks } from './account/provider-links/service.js';
import { Reauthentication } from './account/reauth/service.js';
import { SignIn } from './account/sign-in/service.js';
import { SignUp } from './account/sign-up/service.js';
import type { Config } from './config.js';
import type { DatabaseHandle } from './db/client.js';
import { ReadRouting } from './db/read-routing.js';
import type { HashingPool } from './lib/hashing-pool.js';
import { PasswordHasher } from './lib/passwords.js';
import type { RateLimits } from './limits/rate-counter.js';
import type { Mailer } from './mail/mailer.js';
import { OutboxRepo } from './mail/outbox-repo.js';
import type { AppMetrics } from './metrics/metrics.js';
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
import { FeedCursorCodec } from './modules/posts/cursor.js';
import { PostsRepo } from './modules/posts/repo.js';
import { PostsService } from './modules/posts/service.js';
import { BannersRepo, InspirersRepo } from './modules/promotions/repo.js';
import { PromotionsService } from './modules/promotions/service.js';
import { ProviderAccountsRepo } from './modules/providers/repo.js';
import { ProvidersService } from './modules/providers/service.js';
import { TokensRepo } from './modules/tokens/repo.js';
import { TokensService } from './modules/tokens/service.js';
import { UserOperationsService } from './modules/users/operator-service.js';
import { UsersRepo } from './modules/users/repo.js';
import { UsersService } from './modules/users/service.js';
import { buildVerifiers } from './providers/index.js';
import { createPushTransport } from './push/create-transport.js';
import type { PushLogger } from './push/transport.js';
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

  // The entity modules: each from its repo and what it declares it needs.
  const usersRepo = new UsersRepo(db);
  const providerAccounts = new ProviderAccountsRepo(db);
  // The `providers` of the user object are read from the links themselves.
  const users = new UsersService(usersRepo, providerAccounts, reads);
  const tokens = new TokensService(new TokensRepo(db), config.tokenTtlDays);
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
  );
  const devices = new DevicesService(db, new DevicesRepo(db));
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
    idempotency,
    outcomes,
  );
  // Failed logins per (email or provider identity, IP), and per account (RATE_LIMIT_LOGIN_ACCOUNT).
  const signIn = new SignIn(db, usersRepo, users, tokens, providers, hasher, {
    loginFailures: limits.loginFailures,
    accountFailures: limits.loginAccount,
  });
  // Wrong re-authentication proofs count per account on the login-failure limit.
  const reauth = new Reauthentication(hasher, verifiers, providerAccounts, limits.loginFailures);
  const providerLinks = new ProviderLinks(db, providerAccounts, providers, users, reauth);
  const profile = new ProfileService(db, usersRepo, users, tokens, hasher, reauth, verification);
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
  );
  const deletion = new AccountDeletion(
    new AccountEraser(db, usersRepo, posts, images, new OutboxRepo(db)),
    reauth,
  );
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
    images,
    signUp,
    signIn,
    profile,
    profilePictures,
    verification,
    passwordReset,
    devices,
    operations,
    promotions,
    notifications,
    feedCursors,
    posts,
    deletion,
    idempotency,
    mediaReferences,
  };
}
