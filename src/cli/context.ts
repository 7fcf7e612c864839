import { userExportFiles } from '../account/data-export/erasure.js';
import { DataExportsRepo } from '../account/data-export/repo.js';
import { AccountEraser } from '../account/deletion/eraser.js';
import { ScheduledDeletions } from '../account/deletion/scheduled.js';
import { SecondFactorReset } from '../account/second-factor/operator-reset.js';
import { resetPageUrl, SecurityActivity } from '../account/security-activity/recorder.js';
import { type Config, loadConfig } from '../config.js';
import type { DatabaseHandle } from '../db/client.js';
import { DataDirInUseError } from '../db/data-dir-lock.js';
import { pendingMigrations } from '../db/migrate.js';
import { openConfiguredDatabase } from '../db/open-configured.js';
import { primaryReads } from '../db/read-routing.js';
import type { Executor } from '../db/transaction.js';
import { Mailer } from '../mail/mailer.js';
import { OutboxRepo } from '../mail/outbox-repo.js';
import { createMailTransport, type MailLogger } from '../mail/transport.js';
import { ConsentHistory } from '../modules/consents/history.js';
import { ConsentHistoryRepo } from '../modules/consents/history-repo.js';
import { ConsentReminders } from '../modules/consents/reminders.js';
import { ConsentRemindersRepo } from '../modules/consents/reminders-repo.js';
import { ConsentsRepo } from '../modules/consents/repo.js';
import { ConsentsService } from '../modules/consents/service.js';
import { ImagesService, type PictureRenderer } from '../modules/images/service.js';
import { OneTimeTokensRepo } from '../modules/lifecycle/repo.js';
import { FeedCursorCodec } from '../modules/posts/cursor.js';
import { PostsRepo } from '../modules/posts/repo.js';
import { PostsService } from '../modules/posts/service.js';
import { BannersRepo, InspirersRepo } from '../modules/promotions/repo.js';
import { PromotionsService } from '../modules/promotions/service.js';
import { ProviderAccountsRepo } from '../modules/providers/repo.js';
import { SecondFactorRepo } from '../modules/second-factor/repo.js';
import { ActivityCursorCodec } from '../modules/security-events/cursor.js';
import { SecurityEventsRepo } from '../modules/security-events/repo.js';
import { SecurityEventsService } from '../modules/security-events/service.js';
import { TokensRepo } from '../modules/tokens/repo.js';
import { TokensService } from '../modules/tokens/service.js';
import { UserImportRepo } from '../modules/users/import-repo.js';
import { UserImportService } from '../modules/users/import-service.js';
import { UserOperationsService } from '../modules/users/operator-service.js';
import { UsersRepo } from '../modules/users/repo.js';
import { UsersService } from '../modules/users/service.js';
import { createStorage } from '../storage/create-storage.js';
import { createExportStore } from '../storage/export-store.js';
import type { MediaStorage } from '../storage/media-storage.js';
import { S3Storage } from '../storage/s3-storage.js';
import { OperatorError } from './output.js';

/** The services operator commands work through (never SQL of their own). */
export interface OperatorServices {
  users: UserOperationsService;
  promotions: PromotionsService;
  tokens: TokensService;
  posts: PostsService;
  deletion: AccountEraser;
  /** Schedules a deletion as user/delete does (its grace period, its mail); `enabled` is false without one. */
  scheduledDeletions: ScheduledDeletions;
  importer: UserImportService;
  consents: ConsentsService;
  consentReminders: ConsentReminders;
  consentHistory: ConsentHistory;
  secondFactor: SecondFactorReset;
}

/** Operator commands remove pictures but never store one: no renderer process is started for them. */
const NO_RENDERING: PictureRenderer = {
  renderProfilePicture: () => Promise.reject(new Error('operator commands render no images')),
};

/** A command's mail log: what the server logs as lines, a command says only when something went wrong. */
const commandMailLog: MailLogger = {
  info: () => undefined,
  warn: (details, message) => console.error(`${message} ${JSON.stringify(details)}`),
};

function buildOperatorServices(
  config: Config,
  db: Executor,
  storage: MediaStorage,
  mailer: Mailer,
): OperatorServices {
  const usersRepo = new UsersRepo(db);
  // The user's linked providers, for `user show`, read from the links as the service does.
  const views = new UsersService(usersRepo, new ProviderAccountsRepo(db));
  const users = new UserOperationsService(usersRepo, views);
  // A removed post's files go with it; one that cannot be removed is named, so the operator can remove it.
  const images = new ImagesService(storage, NO_RENDERING, config.imageMaxPixels, (keys) =>
    console.error(`Could not remove the files ${keys.join(', ')}; remove them by hand.`),
  );
  const posts = new PostsService(
    db,
    new PostsRepo(db),
    images,
    new FeedCursorCodec(() => Promise.reject(new Error('operator commands read no feed'))),
  );
  const tokens = new TokensService(new TokensRepo(db), config.tokenTtlDays);
  // What an operator does to an account is logged and alerted like the user's own.
  const activity = new SecurityActivity(db, securityEvents(db), mailer, {
    alerts: config.securityEvents.alerts,
    resetPageUrl: resetPageUrl(config.mail.passwordResetUrl),
  });
  return {
    users,
    promotions: new PromotionsService(
      new BannersRepo(db),
      new InspirersRepo(db),
      users,
      // Operators read what they just changed: always the primary.
      primaryReads(db),
      config.bannerLinkSchemes,
    ),
    tokens,
    posts,
    // Operators are not re-authenticated (they hold the database): they use the eraser itself.
    deletion: new AccountEraser(
      db,
      usersRepo,
      posts,
      images,
      new OutboxRepo(db),
      userExportFiles(new DataExportsRepo(db), createExportStore(storage, config.dataExport.dir), (keys) =>
        console.error(`Could not remove the export files ${keys.join(', ')}; remove them by hand.`),
      ),
    ),
    scheduledDeletions: new ScheduledDeletions(
      db,
      usersRepo,
      views,
      tokens,
      posts,
      new OneTimeTokensRepo(db),
      mailer,
      { provePassword: () => Promise.reject(new Error('operator commands check no password')) },
      { graceDays: config.deletion.graceDays, cancelUrlTemplate: config.mail.deletionCancelUrl },
      activity,
    ),
    importer: new UserImportService(db, new UserImportRepo(db)),
    consents: new ConsentsService(db, new ConsentsRepo(db)),
    consentReminders: new ConsentReminders(
      db,
      new ConsentsRepo(db),
      new ConsentRemindersRepo(db),
      mailer,
      { link: `${config.mail.publicUrl}/profile` },
      // A withdrawal by expiry is logged in its transaction, as the server's own run logs it.
      {
        consentChanged: (trx, userId, details) =>
          activity.recordUnattended(trx, userId, 'consent_changed', details),
      },
    ),
    consentHistory: new ConsentHistory(new ConsentHistoryRepo(db)),
    secondFactor: new SecondFactorReset(db, new SecondFactorRepo(db), activity),
  };
}

/**
 * Opens the configured database for one operator command. The embedded database belongs to one process: while
 * a server holds DATA_DIR the command stops at once, with one line, before PGlite opens a file (so nothing
 * hangs and nothing is corrupted). With DATABASE_URL it runs beside any number of servers.
 */
async function openForOperator(config: Config): Promise<DatabaseHandle> {
  try {
    return await openConfiguredDatabase(config);
  } catch (error) {
    if (error instanceof DataDirInUseError) {
      throw new OperatorError(
        `DATA_DIR ${config.dataDir} is in use by a running accounts server (pid ${error.owner}): stop the ` +
          'server first, or set DATABASE_URL to run commands beside running servers',
      );
    }
    throw error;
  }
}

/** Runs `work` with the operator services on the configured database, and closes it after. */
export async function withOperatorServices<T>(work: (services: OperatorServices) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const database = await openForOperator(config);
  try {
    const pending = await pendingMigrations(database);
    if (pending.length > 0) {
      throw new OperatorError(
        `The database lacks migrations ${pending.join(', ')}: run "accounts migrate" first`,
      );
    }
    const storage = createStorage(config.media);
    // Mail a command writes is sent before it exits (a send that fails is retried by the servers' retrier).
    const mailer = new Mailer(
      new OutboxRepo(database.db),
      createMailTransport(config.mail, commandMailLog),
      config.mail.retry,
      config.mail.smtp?.timeoutMs ?? 0,
      commandMailLog,
    );
    try {
      return await work(buildOperatorServices(config, database.db, storage, mailer));
    } finally {
      await mailer.idle();
      await mailer.close();
      // The S3 client keeps sockets open; local storage has nothing to close.
      if (storage instanceof S3Storage) storage.close();
    }
  } finally {
    await database.close();
  }
}

/** The security log's service, for the events an operator's command writes (it reads no list). */
function securityEvents(db: Executor): SecurityEventsService {
  const repo = new SecurityEventsRepo(db);
  return new SecurityEventsService(repo, new ActivityCursorCodec(() => repo.cursorKey()));
}
