import { type Executor, writeTransaction } from '../../db/transaction.js';
import { fieldOfUsersIndex } from '../../db/users-indexes.js';
import { ValidationError } from '../../errors.js';
import type { AuthContext } from '../../lib/auth-context.js';
import { isCommonPassword, type PasswordHasher } from '../../lib/passwords.js';
import type { RateCounter } from '../../limits/rate-counter.js';
import type { QueuedMail } from '../../mail/mailer.js';
import type { Locale } from '../../validation/messages.js';
import type { ValidatedImage } from '../images/probe.js';
import type { ImagesService } from '../images/service.js';
import type { Reauthenticator, ReauthProof } from '../providers/reauth-service.js';
import type { TokensService } from '../tokens/service.js';
import type { AccountDeps } from './account-deps.js';
import type { UserChanges, UsersRepo } from './repo.js';
import type { UsersService } from './service.js';
import type { UserView } from './view.js';

/** What an email change needs of email verification (the lifecycle module): a token and mail in its transaction. */
interface EmailChangeVerification {
  queueWithin(
    trx: Executor,
    user: { id: string; email: string; username: string },
    locale: Locale,
  ): Promise<QueuedMail>;
  /** After commit: starts sending what `queueWithin` queued. */
  send(mail: QueuedMail | undefined): void;
}

export interface ProfileUpdate {
  username?: string | undefined;
  slug?: string | undefined;
  gender?: number | undefined;
  bio?: string | null | undefined;
  email?: string | undefined;
  password?: string | undefined;
}

const PROFILE_FIELDS = ['username', 'slug', 'gender', 'bio', 'email'] as const;

/** The signed-in user changing their own account: profile fields, password and profile picture. */
export class ProfileService {
  private readonly db: Executor;
  private readonly users: UsersRepo;
  private readonly usersService: UsersService;
  private readonly tokens: TokensService;
  private readonly hasher: PasswordHasher;
  private readonly images: ImagesService;

  constructor(
    deps: AccountDeps,
    /** Confirms the owner (password or linked provider) before a change that could hand the account over. */
    private readonly reauth: Reauthenticator,
    /** Image uploads per user: each costs a decode in the renderer pool, so one account cannot fill it. */
    private readonly imageUploads: RateCounter,
  ) {
    ({
      db: this.db,
      users: this.users,
      usersService: this.usersService,
      tokens: this.tokens,
      hasher: this.hasher,
      images: this.images,
    } = deps);
  }

  #verification: EmailChangeVerification | undefined;

  /** Lets the lifecycle module, built after this one, mail a verification link at every email change. */
  useEmailVerification(verification: EmailChangeVerification): void {
    this.#verification = verification;
  }

  /**
   * Applies the given fields in one transaction. A new password (a first one included) or a new email needs
   * re-authentication; a new password signs out every session but the one making this request.
   */
  async update(
    auth: AuthContext,
    input: ProfileUpdate,
    proof: ReauthProof,
    locale: Locale = 'en',
  ): Promise<UserView> {
    const { user, tokenId: currentTokenId } = auth;
    const { password } = input;
    const changes: UserChanges = {};
    // Only the profile's own fields: the request also carries the re-authentication proof.
    for (const key of PROFILE_FIELDS) {
      if (input[key] !== undefined) Object.assign(changes, { [key]: input[key] });
    }
    // The email is how the account signs in and is recovered: changing it, like setting the password (a
    // first one on a provider-only account included), needs a fresh proof (ASVS 5.0 V7.5.1), so a stolen
    // session alone cannot take the account over.
    const emailChanges =
      changes.email !== undefined && changes.email.toLowerCase() !== user.email.toLowerCase();
    if (password !== undefined || emailChanges) await this.reauth.confirm(user, proof);
    // A new address is unproven until its own link is followed; the old address's link stops working.
    if (emailChanges) changes.email_verified = false;
    if (password !== undefined) {
      // The rule compared the password with the email and username sent along; these are the ones that
      // will be stored, sent or not.
      const email = changes.email ?? user.email;
      if (isCommonPassword(password, [email.split('@')[0], email, changes.username ?? user.username])) {
        throw new ValidationError({ password: [{ rule: 'password_common' }] });
      }
      changes.password_hash = await this.hasher.hash(password);
    }
    const { row, mail } = await writeTransaction(
      this.db,
      async (trx) => {
        const row = await this.users.with(trx).update(user.id, changes);
        if (changes.password_hash !== undefined) await this.tokens.revokeAllBut(trx, user.id, currentTokenId);
        const mail = emailChanges ? await this.#verification?.queueWithin(trx, row, locale) : undefined;
        return { row, mail };
      },
      fieldOfUsersIndex,
    );
    this.#verification?.send(mail);
    return this.usersService.view(row);
  }

  /**
   * Stores the new picture's files, points the user at them in one statement, and only then removes the
   * replaced picture's files: at every moment the stored URL is served, and no file outlives its row.
   */
  async replacePicture(auth: AuthContext, image: ValidatedImage): Promise<UserView> {
    const userId = auth.user.id;
    const { file, probe } = image;
    await this.imageUploads.consume(`user:${userId}`);
    const { row, previous } = await this.images.withStoredPicture(
      { field: 'profile_picture', file, probe },
      (picture) =>
        writeTransaction(this.db, (trx) =>
          // withStoredPicture always passes a picture when given an upload.
          this.users.with(trx).replaceProfilePicture(userId, picture as NonNullable<typeof picture>),
        ),
    );
    await this.images.removePicture(previous);
    return this.usersService.view(row);
  }
}
