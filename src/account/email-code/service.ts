import { createHash } from 'node:crypto';
import type { UserRow, UserWithProviders } from '../../db/schema.js';
import { type Executor, writeTransaction } from '../../db/transaction.js';
import { InvalidCredentialsError, ValidationError } from '../../errors.js';
import { accountKey, attemptKey, type RateCounter } from '../../limits/rate-counter.js';
import { EMAIL_CODE_KIND, renderCodeMail } from '../../mail/code-mail.js';
import type { Mailer } from '../../mail/mailer.js';
import { writeAccountEvent } from '../../modules/account-events/outbox.js';
import { linkWithToken } from '../../modules/lifecycle/links.js';
import type { OneTimeCodes } from '../../modules/one-time-codes/service.js';
import type { UsersRepo } from '../../modules/users/repo.js';
import type { UsersService } from '../../modules/users/service.js';
import type { ClientInfo } from '../client.js';
import type { SecurityActivity } from '../security-activity/recorder.js';
import { refused, type SignInOutcome } from '../sign-in/admission.js';
import { LoginAttempts, type LoginLimits } from '../sign-in/login-attempts.js';
import type { SessionGate } from '../sign-in/session-gate.js';
import type { SignInTokens } from '../sign-in/tokens.js';

/** The links of the code mails: templates with `{token}`. */
export interface EmailCodeLinks {
  /** The page that signs in with a login code's token (the login page). */
  login: string;
  /** The sign-up page, carrying a register code's token. */
  register: string;
}

/** Opens a new session's re-authentication window (the token's row: modules/tokens/reauth-window-repo.ts). */
export interface FreshSessionWindow {
  open(tokenId: string, durationMs: number, factors: number): Promise<Date | undefined>;
}

/** What EmailCodeSignIn is built from. */
export interface EmailCodeSignInDeps {
  db: Executor;
  codes: OneTimeCodes;
  usersRepo: UsersRepo;
  users: UsersService;
  mailer: Mailer;
  links: EmailCodeLinks;
  /** Code mails asked for per (lower-cased) address, whether or not an account has it. */
  perEmail: RateCounter;
  /** The login's failure counters: a wrong code counts like a wrong password. */
  limits: LoginLimits;
  gate: SessionGate;
  sessionTokens: SignInTokens;
  activity: SecurityActivity;
  /** A session made by a code may set a first password at once (an account of codes alone has no other proof). */
  window: { windows: FreshSessionWindow; durationMs: number };
}

/** What verify takes: the address and its code, or the link's token. */
export interface CodeProof {
  email?: string | undefined;
  code?: string | undefined;
  token?: string | undefined;
}

/** The per-address counter's key: hashed, so the limit store never holds addresses in the clear. */
function emailKey(email: string): string {
  return createHash('sha256').update(`email-code:${email.toLowerCase()}`).digest('base64url');
}

/**
 * Sign-in by a code (or its link) mailed to the account's address. Asking answers the same, in the same
 * time, for every address: it only counts the address, and the account is looked up and the code mailed once
 * the answer is written (as auth/password/forgot). A code for an account goes to it whatever its state, so
 * that the session gate answers its holder as a password would (disabled, deletion scheduled, second factor).
 */
export class EmailCodeSignIn {
  private readonly attempts: LoginAttempts;

  constructor(private readonly deps: EmailCodeSignInDeps) {
    this.attempts = new LoginAttempts(deps.limits);
  }

  /** Counts the address, then mails a code after the answer: `login` to an account, `register` to no account. */
  async request(email: string, purpose: 'login' | 'register', client: ClientInfo): Promise<void> {
    await this.deps.perEmail.consume(emailKey(email));
    this.deps.mailer.afterAnswer('email code', () => this.mailCode(email, purpose, client));
  }

  private async mailCode(email: string, purpose: 'login' | 'register', client: ClientInfo): Promise<void> {
    const account = await this.deps.usersRepo.findByEmail(email);
    // A login code only to an account, a sign-up code only to an address no account has: the other asks
    // mail nothing (and were answered the same).
    if (purpose === 'login' ? account === undefined : account !== undefined) return;
    const locale = client.locale ?? 'en';
    const mail = await writeTransaction(this.deps.db, async (trx) => {
      const issued = await this.deps.codes.issueWithin(trx, 'email', email, purpose);
      const content = renderCodeMail(locale, {
        code: issued.code,
        link: linkWithToken(this.deps.links[purpose], issued.token),
        validForMs: issued.validForMs,
        purpose,
      });
      // To the account's address as stored (it differs from the typed one at most in case).
      return this.deps.mailer.queueRenderedWithin(
        trx,
        account?.email ?? email,
        EMAIL_CODE_KIND,
        locale,
        content,
      );
    });
    this.deps.mailer.sendSoon(mail);
  }

  /**
   * A login code (with its address) or its link's token, answered as the email login is: the session, the
   * 401 second_factor_required challenge, or the gate's refusal. Every wrong or dead code is the login's 401,
   * counted on the login's failure counters for that address (and on the code: its fifth wrong guess ends it).
   */
  verify(proof: CodeProof, client: ClientInfo): Promise<SignInOutcome> {
    const { email, code, token } = proof;
    if (token !== undefined) return this.withToken(token, client);
    if (email === undefined || code === undefined) {
      const missing = { rule: 'required' as const };
      throw new ValidationError({
        ...(email === undefined ? { email: [missing] } : {}),
        ...(code === undefined ? { code: [missing] } : {}),
      });
    }
    const identifier = `email:${email.toLowerCase()}`;
    return this.attempts.run(
      { pair: attemptKey(identifier, client.ip), account: async () => accountKey(identifier) },
      async () => {
        const guess = await this.deps.codes.guess('email', email, 'login', code);
        if (guess.kind === 'right') return this.signIn(guess.code.address, client);
        const holder = await this.deps.usersRepo.findByEmail(email);
        if (holder) await this.deps.activity.recordFailedSignIn(holder.id, 'email_code', client);
        return refused(new InvalidCredentialsError());
      },
      (error) => error instanceof InvalidCredentialsError,
    );
  }

  private async withToken(token: string, client: ClientInfo): Promise<SignInOutcome> {
    const used = await this.deps.codes.useToken('email', token, 'login');
    if (used === undefined) return refused(new InvalidCredentialsError());
    return this.signIn(used.address, client);
  }

  /** The code proved the mailbox of `address`: through the gate to a session. */
  private async signIn(address: string, client: ClientInfo): Promise<SignInOutcome> {
    const user = await this.deps.usersRepo.findWithProvidersByEmail(address);
    // Its account was deleted since the code went out.
    if (user === undefined) return refused(new InvalidCredentialsError());
    const knownDevice = await this.deps.sessionTokens.isKnownDevice(client.deviceToken, user.id);
    const answer = await this.deps.gate.admit(
      user,
      { method: 'email_code', knownDevice },
      { factors: 1, purpose: 'sign_in' },
    );
    if (answer.kind === 'second_factor') return answer;
    if (answer.kind === 'refused') return refused(answer.error);
    const issue = await this.deps.sessionTokens.afterOneFactor(
      user.id,
      client.userAgent,
      'email_code',
      async (trx) => ({
        row: await this.markVerified(trx, user),
        alert: await this.deps.activity.recordSignIn(
          { user, method: 'email_code', client, knownDevice },
          trx,
        ),
      }),
    );
    if (issue.kind === 'refused') return refused(issue.error);
    if (issue.kind !== 'issued') return refused(new InvalidCredentialsError());
    this.deps.activity.send(issue.alongside.alert);
    const { windows, durationMs } = this.deps.window;
    await windows.open(issue.token.id, durationMs, 1);
    const view = await this.deps.users.view(issue.alongside.row, user.linked_providers);
    return { kind: 'session', signedIn: { user: { ...view, api_token: issue.token.token } } };
  }

  /** The code proved the address: verified now, if it was not before; the account's row as it is then. */
  private async markVerified(trx: Executor, user: UserWithProviders): Promise<UserRow> {
    if (user.email_verified) return user;
    const row = await this.deps.usersRepo.with(trx).update(user.id, { email_verified: true });
    await writeAccountEvent(trx, 'user.email_verified', user.id, { id: user.id, email: user.email });
    return row;
  }
}
