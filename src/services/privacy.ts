import { ExportListCursorCodec } from '../account/data-export/cursor.js';
import { DataExportJobs } from '../account/data-export/jobs.js';
import { ExportLinks } from '../account/data-export/links.js';
import { exportLists } from '../account/data-export/lists.js';
import type { DataExportsRepo } from '../account/data-export/repo.js';
import { accountSections } from '../account/data-export/sections.js';
import { DataExports } from '../account/data-export/service.js';
import type { Reauthentication } from '../account/reauth/service.js';
import type { SecurityActivity } from '../account/security-activity/recorder.js';
import { ConsentHistoryRepo } from '../modules/consents/history-repo.js';
import type { DevicesRepo } from '../modules/devices/repo.js';
import { GuardianRepo } from '../modules/guardian/repo.js';
import { IdentityRepo } from '../modules/identity/repo.js';
import type { OneTimeTokensRepo } from '../modules/lifecycle/repo.js';
import { NotificationOutboxRepo } from '../modules/notifications/repo.js';
import type { PasskeysRepo } from '../modules/passkeys/repo.js';
import type { PostsRepo } from '../modules/posts/repo.js';
import type { ProviderAccountsRepo } from '../modules/providers/repo.js';
import type { SecondFactorRepo } from '../modules/second-factor/repo.js';
import type { SecurityEventsRepo } from '../modules/security-events/repo.js';
import type { TokensRepo } from '../modules/tokens/repo.js';
import type { UsersRepo } from '../modules/users/repo.js';
import type { UsersService } from '../modules/users/service.js';
import type { ExportStore } from '../storage/export-store.js';
import type { FactoryArgs } from './deps.js';

/** What the data export is made from: every entity an archive reads, and where its zips are kept. */
export interface DataExportParts extends FactoryArgs {
  usersRepo: UsersRepo;
  users: UsersService;
  tokensRepo: TokensRepo;
  providerAccounts: ProviderAccountsRepo;
  postsRepo: PostsRepo;
  oneTimeTokens: OneTimeTokensRepo;
  exportsRepo: DataExportsRepo;
  exportStore: ExportStore;
  passkeysRepo: PasskeysRepo;
  secondFactorRepo: SecondFactorRepo;
  devicesRepo: DevicesRepo;
  securityEventsRepo: SecurityEventsRepo;
  reauth: Reauthentication;
  activity: SecurityActivity;
}

/** The data export: the user's requests, the lists' cursors, and the builder the server runs. */
export interface DataExportServices {
  dataExports: DataExports;
  exportCursors: ExportListCursorCodec;
  /** Builds the archives in the background (the server runs its passes). */
  dataExportJobs: DataExportJobs;
}

/** The data export: built in the background, kept beside the media, mailed as a link. */
export function buildDataExports(parts: DataExportParts): DataExportServices {
  const { config, deps } = parts;
  const db = deps.database.db;
  const { usersRepo, exportsRepo, exportStore } = parts;
  const consentHistory = new ConsentHistoryRepo(db);
  const pushOutbox = new NotificationOutboxRepo(db);
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
        users: parts.users,
        devices: parts.devicesRepo,
        tokens: parts.tokensRepo,
        providers: parts.providerAccounts,
        passkeys: parts.passkeysRepo,
        secondFactor: parts.secondFactorRepo,
        oneTimeLinks: parts.oneTimeTokens,
        guardian: new GuardianRepo(db),
        exports: exportsRepo,
        identity: new IdentityRepo(db),
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
    reauth: parts.reauth,
    jobs: dataExportJobs,
    store: exportStore,
    links: exportLinks,
    perUser: deps.limits.dataExport,
    activity: parts.activity,
    cursors: exportCursors,
  });
  return { dataExports, exportCursors, dataExportJobs };
}
