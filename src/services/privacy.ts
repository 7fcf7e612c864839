import { ExportListCursorCodec } from '../account/data-export/cursor.js';
import { userExportFiles } from '../account/data-export/erasure.js';
import { DataExportJobs } from '../account/data-export/jobs.js';
import { ExportLinks } from '../account/data-export/links.js';
import { exportLists } from '../account/data-export/lists.js';
import { DataExportsRepo } from '../account/data-export/repo.js';
import { accountSections } from '../account/data-export/sections.js';
import { DataExports } from '../account/data-export/service.js';
import { AccountEraser } from '../account/deletion/eraser.js';
import { ScheduledDeletions } from '../account/deletion/scheduled.js';
import { AccountDeletion } from '../account/deletion/service.js';
import type { Reauthentication } from '../account/reauth/service.js';
import type { SecurityActivity } from '../account/security-activity/recorder.js';
import type { SignIn } from '../account/sign-in/service.js';
import type { Config } from '../config.js';
import { OutboxRepo } from '../mail/outbox-repo.js';
import { ConsentHistoryRepo } from '../modules/consents/history-repo.js';
import type { DevicesRepo } from '../modules/devices/repo.js';
import type { ImagesService } from '../modules/images/service.js';
import type { OneTimeTokensRepo } from '../modules/lifecycle/repo.js';
import { NotificationOutboxRepo } from '../modules/notifications/repo.js';
import type { PasskeysRepo } from '../modules/passkeys/repo.js';
import type { PostsRepo } from '../modules/posts/repo.js';
import type { PostsService } from '../modules/posts/service.js';
import type { ProviderAccountsRepo } from '../modules/providers/repo.js';
import type { SecondFactorRepo } from '../modules/second-factor/repo.js';
import type { SecurityEventsRepo } from '../modules/security-events/repo.js';
import type { TokensRepo } from '../modules/tokens/repo.js';
import type { TokensService } from '../modules/tokens/service.js';
import type { UsersRepo } from '../modules/users/repo.js';
import type { UsersService } from '../modules/users/service.js';
import { createExportStore } from '../storage/export-store.js';
import type { ServiceDeps } from './deps.js';

/** What the export and the deletion are made from: the entities built before them. */
export interface PrivacyParts {
  usersRepo: UsersRepo;
  users: UsersService;
  devicesRepo: DevicesRepo;
  tokensRepo: TokensRepo;
  tokens: TokensService;
  providerAccounts: ProviderAccountsRepo;
  postsRepo: PostsRepo;
  posts: PostsService;
  images: ImagesService;
  oneTimeTokens: OneTimeTokensRepo;
  reauth: Reauthentication;
  signIn: SignIn;
  activity: SecurityActivity;
  securityEventsRepo: SecurityEventsRepo;
  passkeysRepo: PasskeysRepo;
  secondFactorRepo: SecondFactorRepo;
}

/** The data export (built in the background, kept beside the media) and the account's deletion. */
export function buildPrivacy(config: Config, deps: ServiceDeps, parts: PrivacyParts) {
  const db = deps.database.db;
  const { usersRepo, users, tokens, posts, images, reauth } = parts;
  const exportsRepo = new DataExportsRepo(db);
  const consentHistory = new ConsentHistoryRepo(db);
  const pushOutbox = new NotificationOutboxRepo(db);
  const exportStore = createExportStore(deps.storage, config.dataExport.dir);
  const exportLinks = new ExportLinks(
    () => exportsRepo.linkSecret(),
    `${config.mail.publicUrl}/${config.apiVersions[0] ?? 'v1'}`,
  );
  const dataExportJobs = new DataExportJobs({
    db,
    exports: exportsRepo,
    findUser: (id) => usersRepo.findById(id),
    sources: {
      sections: accountSections({
        users,
        devices: parts.devicesRepo,
        tokens: parts.tokensRepo,
        providers: parts.providerAccounts,
        passkeys: parts.passkeysRepo,
        secondFactor: parts.secondFactorRepo,
        oneTimeLinks: parts.oneTimeTokens,
        exports: exportsRepo,
      }),
      lists: exportLists({
        consentHistory: (userId, after, limit) => consentHistory.page(userId, after, limit),
        securityEvents: (userId, after, limit) => parts.securityEventsRepo.page(userId, after, limit),
        notifications: (userId, after, limit) => pushOutbox.page(userId, after, limit),
      }),
      postsPage: (userId, after, limit) => parts.postsRepo.authoredPage(userId, after, limit),
      likesPage: (userId, after, limit) => parts.postsRepo.likesPage(userId, after, limit),
      media: deps.storage,
    },
    store: exportStore,
    links: exportLinks,
    mailer: deps.mailer,
    settings: config.dataExport,
    log: deps.log,
  });
  const exportCursors = new ExportListCursorCodec(() => exportsRepo.linkSecret());
  const dataExports = new DataExports({
    db,
    exports: exportsRepo,
    reauth,
    jobs: dataExportJobs,
    store: exportStore,
    links: exportLinks,
    perUser: deps.limits.dataExport,
    activity: parts.activity,
    cursors: exportCursors,
  });
  const eraser = new AccountEraser({
    db,
    usersRepo,
    posts,
    images,
    mailOutbox: new OutboxRepo(db),
    exportFiles: userExportFiles(exportsRepo, exportStore, deps.reportCleanupFailure ?? (() => {})),
  });
  // A deletion waits DELETION_GRACE_DAYS (the user can take it back); the cancel's password check is the
  // login's, under its counters.
  const scheduledDeletions = new ScheduledDeletions({
    db,
    usersRepo,
    users,
    tokens,
    posts,
    oneTimeTokens: parts.oneTimeTokens,
    mailer: deps.mailer,
    passwords: parts.signIn,
    settings: { graceDays: config.deletion.graceDays, cancelUrlTemplate: config.mail.deletionCancelUrl },
    activity: parts.activity,
  });
  const deletion = new AccountDeletion(eraser, scheduledDeletions, reauth);
  return { dataExports, exportCursors, dataExportJobs, eraser, scheduledDeletions, deletion };
}
