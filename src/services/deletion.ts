import { userExportFiles } from '../account/data-export/erasure.js';
import { DataExportsRepo } from '../account/data-export/repo.js';
import { AccountEraser } from '../account/deletion/eraser.js';
import { type PasswordProof, ScheduledDeletions } from '../account/deletion/scheduled.js';
import type { SecurityActivity } from '../account/security-activity/recorder.js';
import type { SessionGate } from '../account/sign-in/session-gate.js';
import type { Config } from '../config.js';
import { OutboxRepo } from '../mail/outbox-repo.js';
import { GuardianRepo } from '../modules/guardian/repo.js';
import { createExportStore } from '../storage/export-store.js';
import type { ServiceDeps } from './deps.js';
import type { Entities } from './entities.js';

/** What an account's deletion is made from: the entities built before it, and the login's password check. */
export type DeletionParts = Pick<
  Entities,
  'usersRepo' | 'users' | 'tokens' | 'posts' | 'images' | 'oneTimeTokens'
> & {
  /** The cancel's password check: the login's, under its counters (sign-in). */
  passwords: PasswordProof;
  /** A cancel is a sign-in: the gate decides how (a second factor first), and writes its token. */
  gate: SessionGate;
  activity: SecurityActivity;
};

/**
 * The eraser (an account and everything of it, its export zips too) and the scheduled deletion, alike for
 * the server (user/delete and its periodic sweep) and the operator commands (`user delete`).
 */
export function buildDeletion(config: Config, deps: ServiceDeps, parts: DeletionParts) {
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
    settings: { graceDays: config.deletion.graceDays, cancelUrlTemplate: config.mail.deletionCancelUrl },
    activity,
  });
  return { exportsRepo, exportStore, eraser, scheduledDeletions };
}

export type Deletion = ReturnType<typeof buildDeletion>;
