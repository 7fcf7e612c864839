import type { PostImage, ProfilePicture, UserRow } from '../../db/schema.js';
import { type Executor, writeTransaction } from '../../db/transaction.js';
import type { OutboxRepo } from '../../mail/outbox-repo.js';
import { writeAccountEvent } from '../../modules/account-events/outbox.js';
import type { ImagesService } from '../../modules/images/service.js';
import type { PostsService } from '../../modules/posts/service.js';
import type { TokensService } from '../../modules/tokens/service.js';
import type { UsersRepo } from '../../modules/users/repo.js';

/** The user's data-export zips: their keys read inside the erasing transaction, the files removed after. */
export interface UserExportFiles {
  fileKeysOf(trx: Executor, userId: string): Promise<string[]>;
  remove(keys: readonly string[]): Promise<void>;
}

/** The files of an erased account, removed once its transaction has committed. */
interface ErasedFiles {
  picture: ProfilePicture | null;
  postImages: PostImage[];
  exportKeys: string[];
}

/** What one deletion removed: who it was, for the operator's confirmation line. */
export interface DeletedAccount {
  id: string;
  username: string;
}

/** What AccountEraser is built from. */
export interface AccountEraserDeps {
  db: Executor;
  usersRepo: UsersRepo;
  /** The sessions an immediate erasure ends (a scheduled one revoked them already), each with its event. */
  tokens: TokensService;
  posts: PostsService;
  images: ImagesService;
  mailOutbox: OutboxRepo;
  /** The texts to the account's number: pending ones dropped, sent ones forgotten (SmsOutboxRepo.forgetNumber). */
  smsOutbox?: { with(trx: Executor): { forgetNumber(number: string): Promise<void> } };
  exportFiles: UserExportFiles;
  /**
   * Other people's addresses the account's data holds (a child's guardian): mails sent there are forgotten
   * with the account, as its own address's are. Read inside the erasing transaction.
   */
  relatedAddresses?: (trx: Executor, userId: string) => Promise<string[]>;
}

/**
 * Account deletion (PIPA's right to erasure, the app stores' in-app deletion rule). One transaction
 * removes everything of the account:
 * - the user row, and by its foreign keys (all ON DELETE CASCADE, migrations 0001–0008) its api_tokens,
 *   devices, provider_accounts, one_time_tokens, notification_outbox rows, inspirer rank and likes, and its
 *   identity verification (0030), which frees its person to verify another account;
 * - its posts (and the likes others gave them);
 * - its sessions, each with its `session.revoked` event, and the `user.deleted` event itself;
 * - its likes of other users' posts, taken back first so those posts' like_count and hot_score stay right;
 * - mails still waiting to go to its address; sent ones stay as the delivery record, address masked and
 *   body emptied (OutboxRepo.forgetAddress).
 * The files (profile picture, post images, data-export zips) go only after the commit: a rolled-back deletion keeps them all.
 * The email, username (and its skeleton) and slug live only on the row, so they are free again at once.
 */
export class AccountEraser {
  constructor(private readonly deps: AccountEraserDeps) {}

  /**
   * Erases the account, without asking who wants it: the operator CLI calls this directly (the operator
   * holds the database); users go through AccountDeletion, which re-authenticates first. Undefined
   * when there was no such user (any more), or when `stillDue` (asked under the row's lock) says the account
   * is no longer to be erased (a guardian's consent came first).
   */
  async erase(
    user: Pick<UserRow, 'id' | 'username'>,
    stillDue: (row: UserRow) => boolean = () => true,
  ): Promise<DeletedAccount | undefined> {
    const files = await writeTransaction(this.deps.db, async (trx) => {
      // The row lock first (see UsersRepo.lockForDelete), then the likes and liked posts (PostsRepo.unlikeAllOf).
      const row = await this.deps.usersRepo.with(trx).lockForDelete(user.id);
      return row && stillDue(row) ? this.eraseLocked(trx, row) : undefined;
    });
    if (!files) return undefined;
    await this.removeFiles(files);
    return { id: user.id, username: user.username };
  }

  /**
   * Erases accounts whose grace period is over (DELETION_GRACE_DAYS), up to `limit`, each in its own
   * transaction that claims it first (UsersRepo.claimDueDeletion: locked, skipping one that another sweep
   * or a cancel holds), so any number of instances sweep at once and none erases an account twice; a cancel
   * that got the row first wins, one that comes after finds no account. Files go after each commit.
   */
  async eraseDue(limit = 100): Promise<DeletedAccount[]> {
    const erased: DeletedAccount[] = [];
    while (erased.length < limit) {
      const done = await writeTransaction(this.deps.db, async (trx) => {
        const row = await this.deps.usersRepo.with(trx).claimDueDeletion();
        return row && { row, files: await this.eraseLocked(trx, row) };
      });
      if (!done) break;
      await this.removeFiles(done.files);
      erased.push({ id: done.row.id, username: done.row.username });
    }
    return erased;
  }

  /** Everything of the account whose row `trx` holds locked; the files to remove once it commits. */
  private async eraseLocked(trx: Executor, row: UserRow): Promise<ErasedFiles> {
    await this.deps.posts.unlikeAllOfUser(trx, row.id);
    const postImages = await this.deps.posts.deleteAllOfUser(trx, row.id);
    await this.deps.mailOutbox.with(trx).forgetAddress(row.email);
    if (row.phone !== null) await this.deps.smsOutbox?.with(trx).forgetNumber(row.phone);
    for (const address of (await this.deps.relatedAddresses?.(trx, row.id)) ?? []) {
      await this.deps.mailOutbox.with(trx).forgetAddress(address);
    }
    const exportKeys = await this.deps.exportFiles.fileKeysOf(trx, row.id);
    // Revoked here rather than by the foreign key's cascade, so each session's end is an event too.
    await this.deps.tokens.revokeAll(trx, row.id, 'deletion');
    await this.deps.usersRepo.with(trx).delete(row.id);
    // The id only: every other service erases what it holds of it. The user's earlier events stay as they
    // are until delivered and purged (docs/events.md, "Erasure").
    await writeAccountEvent(trx, 'user.deleted', row.id, { id: row.id });
    return { picture: row.profile_picture, postImages, exportKeys };
  }

  /** Best effort after commit; a file that cannot be removed is reported with its keys (ImagesService). */
  private async removeFiles({ picture, postImages, exportKeys }: ErasedFiles): Promise<void> {
    await Promise.all([
      this.deps.images.removePicture(picture),
      this.deps.posts.removeImageFiles(postImages),
      this.deps.exportFiles.remove(exportKeys),
    ]);
  }
}
