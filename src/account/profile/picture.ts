import { type Executor, writeTransaction } from '../../db/transaction.js';
import type { AuthContext } from '../../http/auth-context.js';
import type { ValidatedImage } from '../../modules/images/probe.js';
import type { ImagesService } from '../../modules/images/service.js';
import type { UsersRepo } from '../../modules/users/repo.js';
import type { UsersService } from '../../modules/users/service.js';
import type { UserView } from '../../modules/users/view.js';
import { writeUserUpdated } from '../events/user-events.js';

/** The signed-in user replacing their own profile picture. */
export class ProfilePictureService {
  constructor(
    private readonly db: Executor,
    private readonly users: UsersRepo,
    private readonly usersService: UsersService,
    private readonly images: ImagesService,
  ) {}

  /**
   * Stores the new picture's files, points the user at them in one statement, and only then removes the
   * replaced picture's files: at every moment the stored URL is served, and no file outlives its row.
   */
  async replace(auth: AuthContext, image: ValidatedImage): Promise<UserView> {
    const userId = auth.user.id;
    const { file, probe } = image;
    const { row, previous } = await this.images.withStoredPicture(
      { field: 'profile_picture', file, probe },
      (picture) =>
        writeTransaction(this.db, async (trx) => {
          // withStoredPicture always passes a picture when given an upload.
          const replaced = await this.users
            .with(trx)
            .replaceProfilePicture(userId, picture as NonNullable<typeof picture>);
          await writeUserUpdated(trx, auth.user, replaced.row);
          return replaced;
        }),
    );
    await this.images.removePicture(previous);
    return this.usersService.view(row);
  }
}
