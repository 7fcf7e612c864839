import { userExportFiles } from '../account/data-export/erasure.js';
import { DataExportsRepo } from '../account/data-export/repo.js';
import { AccountEraser } from '../account/deletion/eraser.js';
import { type PasswordProof, ScheduledDeletions } from '../account/deletion/scheduled.js';
import type { SecurityActivity } from '../account/security-activity/recorder.js';
import type { SessionGate } from '../account/sign-in/session-gate.js';
import type { SignInTokens } from '../account/sign-in/tokens.js';
import { OutboxRepo } from '../mail/outbox-repo.js';
import { GuardianRepo } from '../modules/guardian/repo.js';
import type { ImagesService } from '../modules/images/service.js';
import type { OneTimeTokensRepo } from '../modules/lifecycle/repo.js';
import type { PostsService } from '../modules/posts/service.js';
import type { TokensService } from '../modules/tokens/service.js';
import type { UsersRepo } from '../modules/users/repo.js';
import type { UsersService } from '../modules/users/service.js';
import { SmsOutboxRepo } from '../sms/outbox-repo.js';
import { createExportStore, type ExportStore } from '../storage/export-store.js';
import type { FactoryArgs } from './deps.js';

/** What an account's deletion is made from: the entities built before it, and the login's password check. */
export interface DeletionParts extends FactoryArgs {
  usersRepo: UsersRepo;
  users: UsersService;
  tokens: TokensService;
  posts: PostsService;
  images: ImagesService;
  oneTimeTokens: OneTimeTokensRepo;
  /** The cancel's password check: the login's, under its counters (sign-in). */
  passwords: PasswordProof;
  /** A cancel is a sign-in: the gate decides how (a second factor first)… */
  gate: SessionGate;
  /** …and its token is written as every session's is. */
  sessionTokens: SignInTokens;
  activity: SecurityActivity;
}

/** The eraser and the scheduled deletion, and where the data exports' zips are kept. */
export interface DeletionServices {
  exportsRepo: DataExportsRepo;
  exportStore: ExportStore;
  /** Erases an account and everything of it at once (operators; a deletion once it is due). */
  eraser: AccountEraser;
  scheduledDeletions: ScheduledDeletions;
}

/**
 * The eraser (an account and everything of it, its export zips too) and the scheduled deletion, alike for
 * the server (user/delete and its periodic sweep) and the operator commands (`user delete`).
 */
export function buildDeletion(parts: DeletionParts): DeletionServices {
  const { config, deps } = parts;
  const db = deps.database.db;
  const { usersRepo, users, tokens, posts, images, activity } = parts;
  // The exports' zips live beside the media (the data export's service writes them, the eraser removes them).
  const exportsRepo = new DataExportsRepo(db);
  const exportStore = createExportStore(deps.storage, config.dataExport.dir);
  const eraser = new AccountEraser({
    db,
    usersRepo,
    tokens,
    posts,
    images,
    mailOutbox: new OutboxRepo(db),
    smsOutbox: new SmsOutboxRepo(db),
    exportFiles: userExportFiles(exportsRepo, exportStore, deps.reportCleanupFailure ?? (() => {})),
    // A child's guardian addresses go with the child (docs/identity.md).
    relatedAddresses: (trx, userId) => new GuardianRepo(trx).guardianAddresses(userId),
  });
  // A deletion waits DELETION_GRACE_DAYS (the user can take it back).
  const scheduledDeletions = new ScheduledDeletions({
    db,
    usersRepo,
    users,
    tokens,
    posts,
    oneTimeTokens: parts.oneTimeTokens,
    mailer: deps.mailer,
    passwords: parts.passwords,
    gate: parts.gate,
    sessionTokens: parts.sessionTokens,
    settings: { graceDays: config.deletion.graceDays, cancelUrlTemplate: config.mail.deletionCancelUrl },
    activity,
  });
  return { exportsRepo, exportStore, eraser, scheduledDeletions };
}
