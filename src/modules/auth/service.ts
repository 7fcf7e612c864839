import { randomInt } from 'node:crypto';
import type { ProfilePicture, UserRow, UserWithProviders } from '../../db/schema.js';
import type { Executor } from '../../db/transaction.js';
import { writeStatement, writeTransaction } from '../../db/transaction.js';
import { fieldOfUsersIndex } from '../../db/users-indexes.js';
import { AccountDisabledError, InvalidCredentialsError, ValidationError } from '../../errors.js';
import type { AuthContext } from '../../http/auth-context.js';
import { newId } from '../../lib/ids.js';
import type { PasswordHasher } from '../../lib/passwords.js';
import {
  accountKey,
  attemptKey,
  type RateCounter,
  throttledAttempt,
  unlimited,
} from '../../limits/rate-counter.js';
import type { QueuedMail } from '../../mail/mailer.js';
import type { VerifiedIdentity } from '../../providers/verifier.js';
import type { Locale } from '../../validation/messages.js';
import type { ValidatedImage } from '../images/probe.js';
import type { ImagesService } from '../images/service.js';
import type { PreparedVerification } from '../lifecycle/verification-service.js';
import { type ProviderCredentials, requiredCredentialsIn } from '../providers/credentials.js';
import type { IssuedToken, TokensService } from '../tokens/service.js';
import type { NewAccount, UsersRepo } from '../users/repo.js';
import type { UsersService } from '../users/service.js';
import type { SignedIn } from '../users/view.js';
import { SignUpRepo } from './sign-up-repo.js';

export interface RegisterInput {
  type: string;
  email: string;
  username: string;
  slug?: string | undefined;
  gender: number;
  password?: string | undefined;
  /** The picture with what the image rule read of its header (it is not read twice). */
  profile_picture?: ValidatedImage | undefined;
  /** For a provider type: `<type>_user_id` and `<type>_access_token`, among the other parameters. */
  [field: string]: unknown;
}

/** What registration needs of the providers module: verification first, then the link inside the transaction. */
export interface ProviderIdentities {
  /** The provider vouches for the identity, and no account has it yet (else a 422 on `<type>_user_id`). */
  confirmNewIdentity(credentials: ProviderCredentials): Promise<VerifiedIdentity>;
  linkWithin(trx: Executor, userId: string, credentials: ProviderCredentials): Promise<void>;
  /** The field a unique violation of the provider links stands for (a race of two sign-ups). */
  fieldOfIndex(provider: string, constraint: string | undefined): string | undefined;
}

/** The provider credentials of a provider-type registration; undefined for `email`. */
function providerCredentials(input: RegisterInput): ProviderCredentials | undefined {
  // The rules make both fields required for every provider type.
  return input.type === 'email' ? undefined : requiredCredentialsIn(input, input.type);
}

/** Who is asking: the user agent names the token in the user's session list; the IP keys login throttling. */
export interface ClientInfo {
  userAgent: string | undefined;
  ip: string;
  /**
   * The api_token the login request presented, if any: when it was issued to the same account (live or
   * expired, not revoked), the request comes from a device the owner signed in on before.
   */
  deviceToken?: string | undefined;
  /** The language of any mail the request sends (Accept-Language); English when absent. */
  locale?: Locale;
}

/** What registration needs of email verification (the lifecycle module): a token and mail in its transaction. */
export interface SignUpVerification {
  /** `newAccount`: the user was created in `trx` (no earlier verification token to replace). */
  queueWithin(
    trx: Executor,
    user: { id: string; email: string; username: string },
    locale: Locale,
    newAccount?: boolean,
  ): Promise<QueuedMail>;
  /** A new account's token and mail, for a sign-up that writes them with the account (one statement). */
  prepare(user: { id: string; email: string; username: string }, locale: Locale): PreparedVerification;
  /** After commit: starts sending what `queueWithin` queued (or `prepare` prepared). */
  send(mail: QueuedMail | undefined): void;
}

/** A failed email login: a wrong password, an account without one, or an unknown email (the 422). */
function isFailedLogin(error: unknown): boolean {
  return error instanceof InvalidCredentialsError || error instanceof ValidationError;
}

const SLUG_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

function randomSuffix(length: number): string {
  let suffix = '';
  for (let i = 0; i < length; i++) suffix += SLUG_ALPHABET[randomInt(SLUG_ALPHABET.length)];
  return suffix;
}

/** The email's local part, made into a valid slug stem (or undefined when too little of it survives). */
export function slugStem(email: string): string | undefined {
  const stem = (email.split('@')[0] ?? '')
    .replace(/[^A-Za-z0-9_-]+/g, '-')
    .replace(/[-_]{2,}/g, '-')
    .replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '')
    .slice(0, 40)
    .replace(/[^A-Za-z0-9]+$/, '')
    .toLowerCase();
  return stem.length >= 4 ? stem : undefined;
}

/** The login-failure counters of AuthService (DESIGN §5, docs/SECURITY.md). */
export interface LoginLimits {
  /** Failed logins per (lower-cased email, IP). */
  loginFailures: RateCounter;
  /** Failed email logins per account from every address (RATE_LIMIT_LOGIN_ACCOUNT). */
  accountFailures?: RateCounter;
}

export class AuthService {
  private readonly loginFailures: RateCounter;
  private readonly accountFailures: RateCounter;
  private readonly signUps: SignUpRepo;

  constructor(
    private readonly db: Executor,
    private readonly users: UsersRepo,
    private readonly usersService: UsersService,
    private readonly tokens: TokensService,
    private readonly hasher: PasswordHasher,
    private readonly images: ImagesService,
    limits: LoginLimits,
    private readonly identities?: ProviderIdentities,
  ) {
    this.loginFailures = limits.loginFailures;
    this.accountFailures = limits.accountFailures ?? unlimited;
    this.signUps = new SignUpRepo(this.db);
  }

  #verification: SignUpVerification | undefined;

  /** Lets the lifecycle module, built after this one, mail a verification link at every email sign-up. */
  useEmailVerification(verification: SignUpVerification): void {
    this.#verification = verification;
  }

  /**
   * The slugs to try for an email, in order: its local part, then with random suffixes, and last `user-`
   * with twelve random characters (when too little of the local part survives, `user-` ones only).
   */
  slugCandidates(email: string): string[] {
    const stem = slugStem(email);
    const last = `user-${randomSuffix(12)}`;
    return stem
      ? [stem, `${stem}-${randomSuffix(4)}`, `${stem}-${randomSuffix(6)}`, last]
      : [`user-${randomSuffix(8)}`, `user-${randomSuffix(10)}`, last];
  }

  /**
   * The first of `candidates` no user has (the last one when all are taken); one query for all. A provider
   * sign-up reads it before its transaction; an email sign-up picks it inside its one statement instead.
   */
  async firstFreeOf(candidates: string[]): Promise<string> {
    const [free] = await this.users.freeSlugs(candidates);
    return free ?? (candidates.at(-1) as string);
  }

  /**
   * Creates the account and its first token in one transaction. The password is hashed before the
   * transaction opens, so no connection is held while argon2 runs.
   */
  async register(input: RegisterInput, client: ClientInfo): Promise<SignedIn> {
    const credentials = providerCredentials(input);
    // Asked before anything is written (and before the slow hash): no account without the provider's word.
    const identity = credentials && (await this.providerIdentities().confirmNewIdentity(credentials));
    // The provider's word that the user owns this very address (OIDC email_verified) stands for our mail.
    const emailVerified =
      identity?.emailVerified === true && identity.email?.toLowerCase() === input.email.toLowerCase();
    const passwordHash = input.password === undefined ? null : await this.hasher.hash(input.password);
    // The picture's files are written before the transaction and removed again if it fails (DESIGN §2.5).
    const upload = input.profile_picture && { field: 'profile_picture', ...input.profile_picture };
    return this.images.withStoredPicture(upload, (picture) =>
      this.registerWithFreeSlug(input, passwordHash, client, picture, credentials, emailVerified),
    );
  }

  private async registerWithFreeSlug(
    input: RegisterInput,
    passwordHash: string | null,
    client: ClientInfo,
    picture: ProfilePicture | undefined,
    credentials: ProviderCredentials | undefined,
    emailVerified: boolean,
  ): Promise<SignedIn> {
    // A derived slug can lose a race to another sign-up; derive again rather than fail the user's request.
    for (let attempt = 1; ; attempt++) {
      const slugs = input.slug === undefined ? this.slugCandidates(input.email) : [input.slug];
      try {
        return await this.createAccount(
          input,
          slugs,
          passwordHash,
          client,
          picture,
          credentials,
          emailVerified,
        );
      } catch (error) {
        const slugTaken = error instanceof ValidationError && Object.keys(error.failures).join() === 'slug';
        if (!slugTaken || input.slug !== undefined || attempt >= 3) throw error;
      }
    }
  }

  /** `slugs`: the client's slug alone, or the candidates to derive one from (the first free one is taken). */
  private async createAccount(
    input: RegisterInput,
    slugs: string[],
    passwordHash: string | null,
    client: ClientInfo,
    picture: ProfilePicture | undefined,
    credentials?: ProviderCredentials,
    emailVerified = false,
  ): Promise<SignedIn> {
    const fields = {
      id: newId(),
      email: input.email,
      username: input.username,
      gender: input.gender,
      password_hash: passwordHash,
      profile_picture: picture ? JSON.stringify(picture) : null,
      email_verified: emailVerified,
    };
    const verification = this.#verification;
    if (!credentials && !emailVerified && verification) {
      return this.createEmailAccount(fields, slugs, client, verification);
    }
    const slug = slugs.length === 1 ? (slugs[0] as string) : await this.firstFreeOf(slugs);
    const account: NewAccount = { ...fields, slug };
    const { row, token, mail } = await writeTransaction(
      this.db,
      async (trx) => {
        const row = await this.users.with(trx).insert(account);
        if (credentials) await this.providerIdentities().linkWithin(trx, row.id, credentials);
        const token = await this.tokens.issue(trx, row.id, client.userAgent);
        // The verification mail commits with the account, and is sent only once it has.
        const mail = emailVerified
          ? undefined
          : await this.#verification?.queueWithin(trx, row, client.locale ?? 'en', true);
        return { row, token, mail };
      },
      (constraint) =>
        fieldOfUsersIndex(constraint) ??
        (credentials && this.providerIdentities().fieldOfIndex(credentials.provider, constraint)),
    );
    this.#verification?.send(mail);
    // A new account's providers are known without a query: the one it registered with, if any.
    const linked = credentials ? [credentials.provider] : [];
    return { user: { ...(await this.usersService.view(row, linked)), api_token: token.token } };
  }

  /**
   * The common sign-up — email and password, verification mailed — as one statement (SignUpRepo): the
   * account, its API token, its verification token and the mail, all or none.
   */
  private async createEmailAccount(
    account: Omit<NewAccount, 'slug'>,
    slugs: string[],
    client: ClientInfo,
    verification: SignUpVerification,
  ): Promise<SignedIn> {
    const token = this.tokens.prepareIssue(account.id, client.userAgent);
    const { token: verificationToken, mail } = verification.prepare(account, client.locale ?? 'en');
    const row = await writeStatement(
      () => this.signUps.insert({ account, slugs, token: token.row, verification: verificationToken, mail }),
      fieldOfUsersIndex,
    );
    verification.send(mail.queued);
    return { user: { ...(await this.usersService.view(row, [])), api_token: token.issued.token } };
  }

  private providerIdentities(): ProviderIdentities {
    if (!this.identities) throw new Error('register: provider type accepted without provider identities');
    return this.identities;
  }

  /**
   * Email and password, throttled per (email, IP): guessing one account's password from one address stops
   * after a few failures, while the same address can still sign in to another account, and the account's
   * owner from another address (so an attacker cannot lock a user out). The per-IP limit, on the route, caps
   * guessing across many accounts.
   */
  loginWithEmail(
    email: string,
    password: string,
    client: ClientInfo,
    /** The account of `email` when the caller has read it already (the login rule does); read here if not. */
    account?: UserWithProviders,
  ): Promise<SignedIn> {
    return throttledAttempt(
      this.loginFailures,
      attemptKey(`email:${email.toLowerCase()}`, client.ip),
      async () => {
        // Guesses spread over many addresses are capped per account too. That cap would also lock the owner
        // out while an attack lasts, so a device the owner signed in on before (it presents a token of this
        // account) is not held to it; the per-(email, IP) limit above still is.
        const known = await this.isKnownDevice(email, client.deviceToken, account);
        return throttledAttempt(
          known ? unlimited : this.accountFailures,
          accountKey(`email:${email.toLowerCase()}`),
          () => this.checkPasswordAndSignIn(email, password, client, account),
          isFailedLogin,
        );
      },
      isFailedLogin,
    );
  }

  /** True when `deviceToken` was issued to the account of `email` (only then: costs one or two indexed reads). */
  private async isKnownDevice(
    email: string,
    deviceToken: string | undefined,
    account: UserRow | undefined,
  ): Promise<boolean> {
    if (deviceToken === undefined) return false;
    const owner = await this.tokens.issuedTo(deviceToken);
    if (owner === undefined) return false;
    return (account ?? (await this.users.findByEmail(email)))?.id === owner;
  }

  /**
   * A wrong password and an account without one both get the same 401. A hash made with a lower argon2 cost
   * than today's is replaced by one made now, while the password is at hand (it is never kept).
   */
  private async checkPasswordAndSignIn(
    email: string,
    password: string,
    client: ClientInfo,
    account: UserWithProviders | undefined,
    checkedBefore = false,
  ): Promise<SignedIn> {
    const user = account ?? (await this.users.findWithProvidersByEmail(email));
    if (!user) throw ValidationError.notFound('email');
    const matches = user.password_hash
      ? await this.hasher.verify(user.password_hash, password)
      : await this.hasher.verifyNothing(password);
    if (!matches || user.password_hash === null) throw new InvalidCredentialsError();
    // Said only now that the password proved right: a guesser never learns that an account is disabled.
    if (user.disabled_at !== null) throw new AccountDisabledError();
    const checkedHash = user.password_hash;
    let token: IssuedToken | undefined;
    if (this.hasher.needsRehash(checkedHash)) {
      token = await this.issueInTransaction(user.id, checkedHash, password, client);
    } else {
      // The usual case, in one statement: the token is written only if the account still has the hash that
      // was just checked and is not disabled, both read under a share lock (TokensService.issueIfSignInHolds).
      token =
        (await writeStatement(() =>
          this.tokens.issueIfSignInHolds(user.id, checkedHash, client.userAgent),
        )) ??
        // It changed meanwhile: the transaction below tells a disabled account from a changed hash.
        (await this.issueInTransaction(user.id, checkedHash, undefined, client));
    }
    if (!token) {
      // The hash changed since it was checked: a password change (this login proved the old password: no
      // token), or a parallel login's upgrade of the same password. One more check against the hash as it is
      // now tells the two apart.
      if (checkedBefore) throw new InvalidCredentialsError();
      return this.checkPasswordAndSignIn(email, password, client, undefined, true);
    }
    return {
      user: { ...(await this.usersService.view(user, user.linked_providers)), api_token: token.token },
    };
  }

  /**
   * Issues the token in a transaction that re-reads the hash (the hash was checked outside any transaction:
   * argon2 takes a while) and the disabled flag (an operator may have disabled the account meanwhile), and,
   * given the `password` of a hash with a lower cost than today's, stores a new hash of it. Undefined when
   * the hash changed meanwhile.
   */
  private async issueInTransaction(
    userId: string,
    checkedHash: string,
    password: string | undefined,
    client: ClientInfo,
  ): Promise<IssuedToken | undefined> {
    const rehashed = password === undefined ? undefined : await this.hasher.hash(password);
    return writeTransaction(this.db, async (trx) => {
      const users = this.users.with(trx);
      const current = await users.signInState(userId, rehashed ? 'update' : 'share');
      if (current !== undefined && current.disabled_at !== null) throw new AccountDisabledError();
      if (current?.password_hash !== checkedHash) return undefined;
      if (rehashed) await users.replacePasswordHash(userId, rehashed);
      return this.tokens.issue(trx, userId, client.userAgent);
    });
  }

  async logout(auth: AuthContext): Promise<void> {
    await this.tokens.revoke(auth.tokenId);
  }
}
