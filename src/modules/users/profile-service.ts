import type { UserRow } from '../../db/schema.js';
import { type Executor, writeTransaction } from '../../db/transaction.js';
import { ValidationError } from '../../errors.js';
import { isCommonPassword, type PasswordHasher } from '../../lib/passwords.js';
import { type RateCounter, throttledAttempt } from '../../limits/rate-counter.js';
import type { Locale } from '../../validation/messages.js';
import type { UploadedFile } from '../../validation/types.js';
import type { SignUpVerification } from '../auth/service.js';
import type { ProbeResult } from '../images/probe.js';
import type { ImagesService } from '../images/service.js';
import type { TokensService } from '../tokens/service.js';
import { fieldOfUsersIndex, type UserChanges, type UsersRepo } from './repo.js';
import type { UsersService } from './service.js';
import type { UserView } from './view.js';

export interface ProfileUpdate {
  username?: string | undefined;
  slug?: string | undefined;
  gender?: number | undefined;
  bio?: string | null | undefined;
  email?: string | undefined;
  password?: string | undefined;
  current_password?: string | undefined;
}

/** The signed-in user changing their own account: profile fields, password and profile picture. */
export class ProfileService {
  constructor(
    private readonly db: Executor,
    private readonly users: UsersRepo,
    private readonly usersService: UsersService,
    private readonly tokens: TokensService,
    private readonly hasher: PasswordHasher,
    private readonly images: ImagesService,
    /** Wrong `current_password` guesses per user (the login-failure limit): a stolen session cannot brute-force it. */
    private readonly passwordGuesses: RateCounter,
  ) {}

  #verification: SignUpVerification | undefined;

  /** Lets the lifecycle module, built after this one, mail a verification link at every email change. */
  useEmailVerification(verification: SignUpVerification): void {
    this.#verification = verification;
  }

  /**
   * Applies the given fields in one transaction. A new password or email needs the current password (when
   * the user has one); a new password signs out every session but the one making this request.
   */
  async update(
    user: UserRow,
    currentTokenId: string,
    input: ProfileUpdate,
    locale: Locale = 'en',
  ): Promise<UserView> {
    const { password, current_password: currentPassword, ...profile } = input;
    const changes: UserChanges = {};
    for (const [key, value] of Object.entries(profile)) {
      if (value !== undefined) Object.assign(changes, { [key]: value });
    }
    // The email is how the account signs in and is recovered: changing it, like the password, needs the
    // present password (ASVS 5.0 V7.5.1), so a stolen session alone cannot take the account over.
    const emailChanges =
      changes.email !== undefined && changes.email.toLowerCase() !== user.email.toLowerCase();
    if (password !== undefined || emailChanges) await this.checkCurrentPassword(user, currentPassword);
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

  private async checkCurrentPassword(user: UserRow, currentPassword: string | undefined): Promise<void> {
    // A provider-only account has no password to confirm; its session is the proof.
    if (user.password_hash === null) return;
    if (currentPassword === undefined) {
      throw new ValidationError({ current_password: [{ rule: 'required' }] });
    }
    const storedHash = user.password_hash;
    // Counted per account, whatever the address: whoever holds the session may change IPs at will.
    await throttledAttempt(
      this.passwordGuesses,
      `current-password:${user.id}`,
      async () => {
        if (!(await this.hasher.verify(storedHash, currentPassword))) {
          throw new ValidationError({ current_password: [{ rule: 'current_password' }] });
        }
      },
      (error) => error instanceof ValidationError,
    );
  }

  /**
   * Stores the new picture's files, points the user at them in one statement, and only then removes the
   * replaced picture's files: at every moment the stored URL is served, and no file outlives its row.
   */
  async replacePicture(
    userId: string,
    file: UploadedFile,
    probe: ProbeResult | undefined,
  ): Promise<UserView> {
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
