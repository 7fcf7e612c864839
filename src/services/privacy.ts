import { ExportListCursorCodec } from '../account/data-export/cursor.js';
import { DataExportJobs } from '../account/data-export/jobs.js';
import { ExportLinks } from '../account/data-export/links.js';
import { exportLists } from '../account/data-export/lists.js';
import { accountSections } from '../account/data-export/sections.js';
import { DataExports } from '../account/data-export/service.js';
import type { Reauthentication } from '../account/reauth/service.js';
import type { SecurityActivity } from '../account/security-activity/recorder.js';
import type { Config } from '../config.js';
import { ConsentHistoryRepo } from '../modules/consents/history-repo.js';
import type { DevicesRepo } from '../modules/devices/repo.js';
import { GuardianRepo } from '../modules/guardian/repo.js';
import { IdentityRepo } from '../modules/identity/repo.js';
import { NotificationOutboxRepo } from '../modules/notifications/repo.js';
import type { SecurityEventsRepo } from '../modules/security-events/repo.js';
import type { Deletion } from './deletion.js';
import type { ServiceDeps } from './deps.js';
import type { Entities } from './entities.js';
import type { PasskeyProofs } from './factors.js';
import type { SignInFlows } from './sign-in.js';

/** What the data export is made from: every entity an archive reads, and where its zips are kept. */
export type DataExportParts = Pick<
  Entities,
  'usersRepo' | 'users' | 'tokensRepo' | 'providerAccounts' | 'postsRepo' | 'oneTimeTokens'
> &
  Pick<Deletion, 'exportsRepo' | 'exportStore'> &
  Pick<PasskeyProofs, 'passkeysRepo'> &
  Pick<SignInFlows, 'secondFactorRepo'> & {
    devicesRepo: DevicesRepo;
    securityEventsRepo: SecurityEventsRepo;
    reauth: Reauthentication;
    activity: SecurityActivity;
  };

/** The data export: built in the background, kept beside the media, mailed as a link. */
export function buildDataExports(config: Config, deps: ServiceDeps, parts: DataExportParts) {
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
