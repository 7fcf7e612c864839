import type { SecurityActivity } from '../account/security-activity/recorder.js';
import { PasswordHasher } from '../lib/passwords.js';
import { ConsentReminders } from '../modules/consents/reminders.js';
import { ConsentRemindersRepo } from '../modules/consents/reminders-repo.js';
import { ConsentsRepo } from '../modules/consents/repo.js';
import { ConsentsService } from '../modules/consents/service.js';
import { IdempotencyRepo } from '../modules/idempotency/repo.js';
import { IdempotencyService } from '../modules/idempotency/service.js';
import { ImagesService, type PictureRenderer } from '../modules/images/service.js';
import { OneTimeTokensRepo } from '../modules/lifecycle/repo.js';
import { FeedCursorCodec } from '../modules/posts/cursor.js';
import { PostsRepo } from '../modules/posts/repo.js';
import { PostsService } from '../modules/posts/service.js';
import { BannersRepo, InspirersRepo } from '../modules/promotions/repo.js';
import { PromotionsService } from '../modules/promotions/service.js';
import { ProviderAccountsRepo } from '../modules/providers/repo.js';
import { ProvidersService } from '../modules/providers/service.js';
import { TokensRepo } from '../modules/tokens/repo.js';
import { TokensService } from '../modules/tokens/service.js';
import { UserOperationsService } from '../modules/users/operator-service.js';
import { UsersRepo } from '../modules/users/repo.js';
import { UsersService } from '../modules/users/service.js';
import { buildVerifiers } from '../providers/index.js';
import type { ProviderVerifier } from '../providers/verifier.js';
import type { FactoryArgs } from './deps.js';

/** Without a renderer (an operator command) pictures can be removed but never stored: no process starts. */
const NO_RENDERING: PictureRenderer = {
  renderProfilePicture: () => Promise.reject(new Error('this process renders no images')),
};

/** What the entity modules are made from besides the config and the deps. */
export interface EntityParts extends FactoryArgs {
  /** The modules that log an event (a revoked session, a consent change) record it here. */
  activity: SecurityActivity;
}

/** The entity modules, and the repos the flows above them write through. */
export interface EntityServices {
  usersRepo: UsersRepo;
  providerAccounts: ProviderAccountsRepo;
  users: UsersService;
  /** The operators' handle on users (the inspirer flag, disabling, lookups). */
  operations: UserOperationsService;
  tokensRepo: TokensRepo;
  tokens: TokensService;
  hasher: PasswordHasher;
  /** One verifier per configured identity provider, by name. */
  verifiers: Map<string, ProviderVerifier>;
  providers: ProvidersService;
  /** The names of the configured identity providers. */
  configuredProviders: string[];
  images: ImagesService;
  oneTimeTokens: OneTimeTokensRepo;
  consents: ConsentsService;
  consentReminders: ConsentReminders;
  promotions: PromotionsService;
  postsRepo: PostsRepo;
  feedCursors: FeedCursorCodec;
  idempotency: IdempotencyService;
  posts: PostsService;
}

/** The entity modules: each from its repo and what it declares it needs. */
export function buildEntities({ config, deps, activity }: EntityParts): EntityServices {
  const db = deps.database.db;
  const { reads } = deps;
  const usersRepo = new UsersRepo(db);
  const providerAccounts = new ProviderAccountsRepo(db);
  // The `providers` of the user object are read from the links themselves.
  const users = new UsersService(usersRepo, providerAccounts, reads);
  const operations = new UserOperationsService(usersRepo, users);
  const tokensRepo = new TokensRepo(db);
  // A session revoked from the session list is logged (logout is not: docs/SECURITY.md says why).
  const tokens = new TokensService(tokensRepo, config.tokenTtlDays, {
    tokenRevoked: async (user, tokenId, client) => {
      await activity.record({ user, type: 'token_revoked', client, details: { token_id: tokenId } });
    },
  });
  const hasher = deps.hasher ?? new PasswordHasher(config.argon2, deps.metrics?.hashObserver, deps.hashing);
  const verifiers = buildVerifiers(config.providers, deps.metrics?.verificationObserver);
  const providers = new ProvidersService(providerAccounts, verifiers);
  const configuredProviders = config.providers.configured.map((provider) => provider.name);
  const images = new ImagesService(
    deps.storage,
    deps.imageRenderer ?? NO_RENDERING,
    config.imageMaxPixels,
    deps.reportCleanupFailure,
  );
  const oneTimeTokens = new OneTimeTokensRepo(db);
  const consentsRepo = new ConsentsRepo(db);
  // A consent change is logged in its transaction (it has no alert).
  const consents = new ConsentsService(
    db,
    consentsRepo,
    {
      consentChanged: async (trx, user, client, change) => {
        await activity.record({ user, type: 'consent_changed', client, details: change }, trx);
      },
    },
    deps.database.listen,
  );
  // Re-confirmation happens on the web profile page; a withdrawal by expiry is logged like the user's own.
  const consentReminders = new ConsentReminders({
    db,
    consents: consentsRepo,
    reminders: new ConsentRemindersRepo(db),
    mailer: deps.mailer,
    settings: { link: `${config.mail.publicUrl}/profile` },
    log: {
      consentChanged: (trx, userId, details) =>
        activity.recordUnattended(trx, userId, 'consent_changed', details),
    },
  });
  const promotions = new PromotionsService({
    banners: new BannersRepo(db),
    inspirers: new InspirersRepo(db),
    users: operations,
    reads,
    linkSchemes: config.bannerLinkSchemes,
    images,
    publicUrl: config.mail.publicUrl,
  });
  const postsRepo = new PostsRepo(db);
  const feedCursors = new FeedCursorCodec(() => postsRepo.secret('feed_cursor'));
  // Idempotency-Key answers, read and written on the primary only; outcomes: a lost answer's check.
  const idempotency = new IdempotencyService(new IdempotencyRepo(db));
  const { outcomes } = deps.database;
  const posts = new PostsService({
    db,
    postsRepo,
    images,
    cursors: feedCursors,
    reads,
    idempotency,
    outcomes,
  });
  return {
    usersRepo,
    providerAccounts,
    users,
    operations,
    tokensRepo,
    tokens,
    hasher,
    verifiers,
    providers,
    configuredProviders,
    images,
    oneTimeTokens,
    consents,
    consentReminders,
    promotions,
    postsRepo,
    feedCursors,
    idempotency,
    posts,
  };
}
