import { type Executor, writeTransaction } from '../../db/transaction.js';
import { fieldOfUsersIndex } from '../../db/users-indexes.js';
import { ValidationError } from '../../errors.js';
import type { AuthContext } from '../../http/auth-context.js';
import { isCommonPassword, type PasswordHasher } from '../../lib/passwords.js';
import type { EmailVerificationService } from '../../modules/lifecycle/verification-service.js';
import type { TokensService } from '../../modules/tokens/service.js';
import type { UserChanges, UsersRepo } from '../../modules/users/repo.js';
import type { UsersService } from '../../modules/users/service.js';
import type { UserView } from '../../modules/users/view.js';
import type { ClientInfo } from '../client.js';
import { writeUserUpdated } from '../events/user-events.js';
import type { Reauthentication, ReauthProof } from '../reauth/service.js';
import type { SecurityActivity } from '../security-activity/recorder.js';

export interface ProfileUpdate {
  username?: string | undefined;
  slug?: string | undefined;
  gender?: number | undefined;
  bio?: string | null | undefined;
  email?: string | undefined;
  password?: string | undefined;
}

const PROFILE_FIELDS = ['username', 'slug', 'gender', 'bio', 'email'] as const;

/** What ProfileService is built from. */
export interface ProfileServiceDeps {
  db: Executor;
  usersRepo: UsersRepo;
  users: UsersService;
  /** A new password signs out the other sessions. */
  tokens: TokensService;
  hasher: PasswordHasher;
  /** Confirms the owner (password or linked provider) before a change that could hand the account over. */
  reauth: Reauthentication;
  /** Mails a verification link to every new address, in the transaction that stores it. */
  verification: EmailVerificationService;
  /** A new password or email is logged, and its alert mailed to the address the account had. */
  activity: SecurityActivity;
}

/** The signed-in user changing their own account: profile fields, email and password. */
export class ProfileService {
  constructor(private readonly deps: ProfileServiceDeps) {}

  /**
   * Applies the given fields in one transaction. A new password (a first one included) or a new email needs
   * re-authentication; a new password signs out every session but the one making this request.
   */
  async update(
    auth: AuthContext,
    input: ProfileUpdate,
    proof: ReauthProof,
    client: ClientInfo,
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
    // A new email changes where a password reset goes: with a second factor on, it needs two factors.
    if (password !== undefined || emailChanges)
      await this.deps.reauth.confirm(auth, proof, emailChanges ? 'email' : 'password');
    // A new address is unproven until its own link is followed; the old address's link stops working.
    if (emailChanges) changes.email_verified = false;
    if (password !== undefined) {
      // The rule compared the password with the email and username sent along; these are the ones that
      // will be stored, sent or not.
      const email = changes.email ?? user.email;
      if (isCommonPassword(password, [email.split('@')[0], email, changes.username ?? user.username])) {
        throw new ValidationError({ password: [{ rule: 'password_common' }] });
      }
      changes.password_hash = await this.deps.hasher.hash(password);
    }
    const locale = client.locale ?? 'en';
    const { row, mail, alerts } = await writeTransaction(
      this.deps.db,
      async (trx) => {
        const row = await this.deps.usersRepo.with(trx).update(user.id, changes);
        await writeUserUpdated(trx, user, row);
        if (changes.password_hash !== undefined)
          await this.deps.tokens.revokeAllBut(trx, user.id, currentTokenId);
        const mail = emailChanges ? await this.deps.verification.queueWithin(trx, row, locale) : undefined;
        // `user` is the account as it was: the alerts go to the address it had, which a thief who changed
        // the email does not read.
        const alerts = [
          changes.password_hash !== undefined
            ? await this.deps.activity.record({ user, type: 'password_changed', client }, trx)
            : undefined,
          emailChanges
            ? await this.deps.activity.record({ user, type: 'email_changed', client }, trx)
            : undefined,
        ];
        return { row, mail, alerts };
      },
      fieldOfUsersIndex,
    );
    this.deps.verification.send(mail);
    for (const alert of alerts) this.deps.activity.send(alert);
    return this.deps.users.view(row);
  }
}
