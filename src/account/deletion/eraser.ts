import type { PostImage, ProfilePicture, UserRow } from '../../db/schema.js';
import { type Executor, writeTransaction } from '../../db/transaction.js';
import type { OutboxRepo } from '../../mail/outbox-repo.js';
import type { ImagesService } from '../../modules/images/service.js';
import type { PostsService } from '../../modules/posts/service.js';
import type { UsersRepo } from '../../modules/users/repo.js';

/** The user's data-export zips: their keys read inside the erasing transaction, the files removed after. */
export interface UserExportFiles {
  fileKeysOf(trx: Executor, userId: string): Promise<string[]>;
  remove(keys: readonly string[]): Promise<void>;
}

/** What one deletion removed: who it was, for the operator's confirmation line. */
export interface DeletedAccount {
  id: string;
  username: string;
}

/**
 * Account deletion (PIPA's right to erasure, the app stores' in-app deletion rule). One transaction
 * removes everything of the account:
 * - the user row, and by its foreign keys (all ON DELETE CASCADE, migrations 0001–0008) its api_tokens,
 *   devices, provider_accounts, one_time_tokens, notification_outbox rows, inspirer rank and likes;
 * - its posts (and the likes others gave them);
 * - its likes of other users' posts, taken back first so those posts' like_count and hot_score stay right;
 * - mails still waiting to go to its address; sent ones stay as the delivery record, address masked and
 *   body emptied (OutboxRepo.forgetAddress);
 * - its data exports (by the foreign key); an export being built meanwhile finds its row gone and removes
 *   its own zip.
 * The files (profile picture, post images, export zips) go only after the commit: a rolled-back deletion
 * keeps them all.
 * The email, username (and its skeleton) and slug live only on the row, so they are free again at once.
 */
export class AccountEraser {
  constructor(
    private readonly db: Executor,
    private readonly users: UsersRepo,
    private readonly posts: PostsService,
    private readonly images: ImagesService,
    private readonly mailOutbox: OutboxRepo,
    private readonly exportFiles: UserExportFiles,
  ) {}

  /**
   * Erases the account, without asking who wants it: the operator CLI calls this directly (the operator
   * holds the database); users go through AccountDeletion, which re-authenticates first. Undefined
   * when there was no such user (any more).
   */
  async erase(user: Pick<UserRow, 'id' | 'username'>): Promise<DeletedAccount | undefined> {
    const files = await writeTransaction(this.db, async (trx) => {
      const users = this.users.with(trx);
      // The row lock first (see UsersRepo.lockForDelete), then the likes and liked posts (PostsRepo.unlikeAllOf).
      const row = await users.lockForDelete(user.id);
      if (!row) return undefined;
      await this.posts.unlikeAllOfUser(trx, user.id);
      const postImages = await this.posts.deleteAllOfUser(trx, user.id);
      await this.mailOutbox.with(trx).forgetAddress(row.email);
      const exportKeys = await this.exportFiles.fileKeysOf(trx, user.id);
      await users.delete(user.id);
      return { picture: row.profile_picture, postImages, exportKeys };
    });
    if (!files) return undefined;
    await this.removeFiles(files.picture, files.postImages);
    await this.exportFiles.remove(files.exportKeys);
    return { id: user.id, username: user.username };
  }

  /** Best effort after commit; a file that cannot be removed is reported with its keys (ImagesService). */
  private async removeFiles(picture: ProfilePicture | null, postImages: PostImage[]): Promise<void> {
    await Promise.all([this.images.removePicture(picture), this.posts.removeImageFiles(postImages)]);
  }
}
