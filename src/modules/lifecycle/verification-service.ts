import { type Executor, writeTransaction } from '../../db/transaction.js';
import { ValidationError } from '../../errors.js';
import type { AuthContext } from '../../http/auth-context.js';
import { newId } from '../../lib/ids.js';
import { hashApiToken, newApiToken } from '../../lib/tokens.js';
import type { RateCounter } from '../../limits/rate-counter.js';
import type { Mailer, PreparedMail, QueuedMail } from '../../mail/mailer.js';
import type { Locale } from '../../validation/messages.js';
import { linkWithToken } from './links.js';
import type { NewOneTimeToken, OneTimeTokensRepo } from './repo.js';

export interface VerificationSettings {
  ttlMs: number;
  /** EMAIL_VERIFY_URL: a link template with `{token}`. */
  urlTemplate: string;
}

/** A new account's verification, prepared for a caller that writes it: the token's row and the mail. */
export interface PreparedVerification {
  token: NewOneTimeToken;
  mail: PreparedMail;
}

/** What verification needs of the users module: marking an account's address verified. */
export interface AddressOwners {
  /** Inside the caller's transaction: the one that uses the token up. Returns the account. */
  markEmailVerified(trx: Executor, userId: string): Promise<MailRecipient>;
}

/** Who followed a link: the address and user agent of the request. */
export interface VerifyingClient {
  ip: string;
  userAgent: string | undefined;
}

/** Where a verified address is recorded (the security activity log), in the verification's transaction. */
export interface VerificationLog {
  emailVerified(trx: Executor, user: MailRecipient, client: VerifyingClient): Promise<void>;
}

export interface MailRecipient {
  id: string;
  email: string;
  username: string;
}

/** A token for an address that is not (or no longer) the user's, used, expired or unknown: one answer. */
const invalidToken = () => new ValidationError({ token: [{ rule: 'exists' }] });

/** What EmailVerificationService is built from. */
export interface EmailVerificationServiceDeps {
  db: Executor;
  oneTimeTokens: OneTimeTokensRepo;
  users: AddressOwners;
  mailer: Mailer;
  settings: VerificationSettings;
  /** Resend requests per user. */
  resendLimit: RateCounter;
  log?: VerificationLog;
}

/**
 * Proof that a user reads mail at their address: a single-use token (256 random bits; only its SHA-256
 * stored) mailed to the address at sign-up, at every email change and on request.
 */
export class EmailVerificationService {
  constructor(private readonly deps: EmailVerificationServiceDeps) {}

  /**
   * Inside the caller's transaction (sign-up, email change): a new token for the user's present address,
   * replacing any earlier one (`newAccount`: there is none, the account is being created), and its mail in
   * the outbox. Hand the result to `send` after commit.
   */
  async queueWithin(
    trx: Executor,
    user: MailRecipient,
    locale: Locale,
    newAccount = false,
  ): Promise<QueuedMail | undefined> {
    const { token, mail } = this.prepare(user, locale);
    const tokens = this.deps.oneTimeTokens.with(trx);
    if (newAccount) await tokens.insert(token);
    else await tokens.replace(token);
    return this.deps.mailer.writeWithin(trx, mail);
  }

  /**
   * A new account's token row and mail, for a caller that writes them itself (an email sign-up, in the one
   * statement that creates the account). Hand `mail.queued` to `send` once they are written.
   */
  prepare(user: MailRecipient, locale: Locale): PreparedVerification {
    const token = newApiToken();
    return {
      token: {
        id: newId(),
        userId: user.id,
        purpose: 'email_verify',
        tokenHash: hashApiToken(token),
        email: user.email,
        expiresAt: new Date(Date.now() + this.deps.settings.ttlMs),
      },
      mail: this.deps.mailer.prepare(user.email, 'email_verify', locale, {
        username: user.username,
        link: linkWithToken(this.deps.settings.urlTemplate, token),
        validForMs: this.deps.settings.ttlMs,
      }),
    };
  }

  /** Starts sending a queued verification mail; call only after the transaction committed. */
  send(mail: QueuedMail | undefined): void {
    this.deps.mailer.sendSoon(mail);
  }

  /** Uses the token up and marks the address it was mailed to verified (and logs it, in one transaction). */
  async verify(token: string, client: VerifyingClient): Promise<void> {
    await writeTransaction(this.deps.db, async (trx) => {
      const userId = await this.deps.oneTimeTokens.with(trx).consume(hashApiToken(token), 'email_verify');
      if (userId === undefined) throw invalidToken();
      const owner = await this.deps.users.markEmailVerified(trx, userId);
      await this.deps.log?.emailVerified(trx, owner, client);
    });
  }

  /** A fresh token and mail (the earlier token stops working); throttled per user. */
  async resend(auth: AuthContext, locale: Locale): Promise<'sent' | 'already_verified'> {
    const { user } = auth;
    if (user.email_verified) return 'already_verified';
    await this.deps.resendLimit.consume(`email-resend:${user.id}`);
    const mail = await writeTransaction(this.deps.db, (trx) => this.queueWithin(trx, user, locale));
    this.send(mail);
    return 'sent';
  }
}
