import { createHash } from 'node:crypto';
import { type Executor, writeTransaction } from '../../db/transaction.js';
import { ValidationError } from '../../errors.js';
import { newId } from '../../lib/ids.js';
import { isCommonPassword, type PasswordHasher } from '../../lib/passwords.js';
import { hashApiToken, newApiToken } from '../../lib/tokens.js';
import type { RateCounter } from '../../limits/rate-counter.js';
import type { Mailer, QueuedMail } from '../../mail/mailer.js';
import { writeAccountEvent } from '../../modules/account-events/outbox.js';
import { linkWithToken } from '../../modules/lifecycle/links.js';
import type { OneTimeTokensRepo } from '../../modules/lifecycle/repo.js';
import type { TokensService } from '../../modules/tokens/service.js';
import type { UsersRepo } from '../../modules/users/repo.js';
import type { UsersService } from '../../modules/users/service.js';
import type { Locale } from '../../validation/messages.js';
import type { SecurityActivity } from '../security-activity/recorder.js';
import type { SignInOutcome } from '../sign-in/admission.js';
import type { SessionGate } from '../sign-in/session-gate.js';
import type { SignInTokens } from '../sign-in/tokens.js';

export interface PasswordResetSettings {
  ttlMs: number;
  /** PASSWORD_RESET_URL: a link template with `{token}`. */
  urlTemplate: string;
}

export interface ResetClient {
  userAgent: string | undefined;
  ip: string;
  locale: Locale;
}

/** The per-address counter's key: hashed, so the limit store never holds addresses in the clear. */
function emailKey(email: string): string {
  return createHash('sha256').update(`forgot:${email.toLowerCase()}`).digest('base64url');
}

const invalidToken = () => new ValidationError({ token: [{ rule: 'exists' }] });

/** What PasswordResetService is built from. */
export interface PasswordResetServiceDeps {
  db: Executor;
  oneTimeTokens: OneTimeTokensRepo;
  usersRepo: UsersRepo;
  users: UsersService;
  tokens: TokensService;
  hasher: PasswordHasher;
  mailer: Mailer;
  settings: PasswordResetSettings;
  /** Reset mails per email address (hashed key), existing or not. */
  perEmail: RateCounter;
  /** A reset is logged, and its alert mailed, in the reset's transaction. */
  activity: SecurityActivity;
  /** Whether the account may have a session (with a second factor on, a challenge: the mailbox is one factor). */
  gate: SessionGate;
  /** Writes the session's token in the reset's transaction, the gate's rule applied under a lock. */
  sessionTokens: SignInTokens;
}

/** A forgotten password: a single-use link mailed to the account's address, then a new password. */
export class PasswordResetService {
  constructor(private readonly deps: PasswordResetServiceDeps) {}

  /**
   * Mails a reset link when an account has this address, and answers the same either way: the response
   * never tells whether an account exists (the availability endpoints are throttled; this one must not be
   * a way around them). Nor does its time: the request only counts the address, the same work whatever it
   * is, and the account is looked up, and its link made and mailed, once the answer is written
   * (`mailResetLink`). The link's mail is not in the outbox when the answer arrives, but a moment later.
   */
  async forgot(email: string, client: ResetClient): Promise<void> {
    // Counted per address whether or not it has an account, so a 429 tells nothing either.
    await this.deps.perEmail.consume(emailKey(email));
    this.deps.mailer.afterAnswer('password reset link', () => this.mailResetLink(email, client));
  }

  /** A reset link to the account with this address, if there is one that may reset its password. */
  private async mailResetLink(email: string, client: ResetClient): Promise<void> {
    const user = await this.deps.usersRepo.findByEmail(email);
    // A disabled account gets no mail either, and the answer stays the same: an operator's lock is not
    // undone by whoever reads the mailbox. Nor does one scheduled for deletion: its way back is the
    // cancellation (its mailed link, or the password through auth/deletion/cancel), which a reset would skip.
    if (!user || user.disabled_at !== null || user.deletion_due_at !== null) return;
    const token = newApiToken();
    const mail: QueuedMail | undefined = await writeTransaction(this.deps.db, async (trx) => {
      await this.deps.oneTimeTokens.with(trx).replace({
        id: newId(),
        userId: user.id,
        purpose: 'password_reset',
        tokenHash: hashApiToken(token),
        email: user.email,
        expiresAt: new Date(Date.now() + this.deps.settings.ttlMs),
      });
      // To the address on the account, not the one typed: they differ at most in case, and that is ours.
      return this.deps.mailer.queueWithin(trx, user.email, 'password_reset', client.locale, {
        username: user.username,
        link: linkWithToken(this.deps.settings.urlTemplate, token),
        validForMs: this.deps.settings.ttlMs,
      });
    });
    this.deps.mailer.sendSoon(mail);
  }

  /**
   * Sets the new password, marks the email verified (the link proved the user reads it), signs out every
   * session and answers like login with a new token — all in one transaction that uses the token up
   * atomically, so a token works exactly once however many requests race with it. The session goes through
   * the gate: a disabled account, or one whose deletion was scheduled after the mail went out, is refused and
   * nothing is written; for an account with a second factor on, the password is set but no token issued:
   * the answer is the login's 401 second_factor_required, so whoever reads the mailbox still needs the
   * authenticator to sign in.
   */
  async reset(token: string, password: string, client: ResetClient): Promise<SignInOutcome> {
    const tokenHash = hashApiToken(token);
    // A dead token fails here, before a new password is hashed (argon2 is the costly part).
    const holder = await this.deps.oneTimeTokens.findUsable(tokenHash, 'password_reset');
    if (!holder) throw invalidToken();
    const email = holder.email;
    if (isCommonPassword(password, [email.split('@')[0], email, holder.username])) {
      throw new ValidationError({ password: [{ rule: 'password_common' }] });
    }
    const passwordHash = await this.deps.hasher.hash(password);
    const { row, issued, alert } = await writeTransaction(this.deps.db, async (trx) => {
      const userId = await this.deps.oneTimeTokens.with(trx).consume(tokenHash, 'password_reset');
      if (userId === undefined) throw invalidToken();
      const row = await this.deps.usersRepo
        .with(trx)
        .update(userId, { password_hash: passwordHash, email_verified: true });
      // The link proved the address: verified now, if it was not before.
      if (!holder.email_verified) {
        await writeAccountEvent(trx, 'user.email_verified', userId, { id: userId, email: row.email });
      }
      await this.deps.tokens.revokeAll(trx, userId, 'password_changed');
      const credential = { factors: 1, purpose: 'sign_in' } as const;
      const issue = await this.deps.sessionTokens.issueWithin(
        trx,
        userId,
        credential,
        client.userAgent,
        'email_link',
      );
      // Refused (disabled, or scheduled for deletion, after the mail went out): thrown, so the reset rolls
      // back with the token's use.
      if (issue.kind === 'refused') throw issue.error;
      if (issue.kind === 'gone') throw invalidToken();
      const alert = await this.deps.activity.record({ user: row, type: 'password_reset', client }, trx);
      return { row, issued: issue.kind === 'issued' ? issue.token : undefined, alert };
    });
    this.deps.activity.send(alert);
    if (!issued) {
      // The new password is set; the sign-in goes on with the second factor. The reset link was the first
      // factor; whoever holds it is on no device of record.
      const first = { method: 'password_reset', knownDevice: false };
      return { kind: 'second_factor', challenge: await this.deps.gate.challenge(row.id, first, 'sign_in') };
    }
    const view = await this.deps.users.view(row);
    return { kind: 'session', signedIn: { user: { ...view, api_token: issued.token } } };
  }
}
