import type { UserRow, UserWithProviders } from '../../db/schema.js';
import {
  AccountDeletionScheduledError,
  AccountDisabledError,
  InvalidCredentialsError,
  NotRegisteredError,
  ValidationError,
} from '../../errors.js';
import type { AuthContext } from '../../http/auth-context.js';
import type { PasswordHasher } from '../../lib/passwords.js';
import {
  accountKey,
  attemptKey,
  type RateCounter,
  throttledAttempt,
  unlimited,
} from '../../limits/rate-counter.js';
import type { ProviderCredentials } from '../../modules/providers/credentials.js';
import type { ProvidersService } from '../../modules/providers/service.js';
import type { TokensService } from '../../modules/tokens/service.js';
import type { UsersRepo } from '../../modules/users/repo.js';
import type { UsersService } from '../../modules/users/service.js';
import type { SignedIn } from '../../modules/users/view.js';
import type { ClientInfo } from '../client.js';
import type { SecurityActivity } from '../security-activity/recorder.js';
import type { SignInTokens } from './tokens.js';

/** The login-failure counters of sign-in (docs/SECURITY.md). */
export interface LoginLimits {
  /** Failed logins per (lower-cased email, IP), and per (provider identity, IP). */
  loginFailures: RateCounter;
  /** Failed email logins per account from every address (RATE_LIMIT_LOGIN_ACCOUNT). */
  accountFailures?: RateCounter;
}

/**
 * Where a sign-in goes once its first factor proved right, for an account with a second factor on (the
 * second-factor use case): it throws SecondFactorRequiredError with a challenge instead of a token.
 */
export interface SecondFactorGate {
  /**
   * `first`: what the sign-in proved so far, for the event its completion logs; `enabled`: whether the
   * account has a second factor on, when the caller read it with the account.
   */
  demandIfEnabled(userId: string, first: FirstFactor, enabled?: boolean): Promise<void>;
  isEnabled(userId: string): Promise<boolean>;
}

/** A sign-in's first factor: its method (`email`, a provider, `password_reset`) and whether the device is known. */
export interface FirstFactor {
  method: string;
  knownDevice: boolean;
}

const NO_SECOND_FACTOR: SecondFactorGate = { demandIfEnabled: async () => {}, isEnabled: async () => false };

/** A failed email login: a wrong password, an account without one, or an unknown email (the 422). */
function isFailedLogin(error: unknown): boolean {
  return error instanceof InvalidCredentialsError || error instanceof ValidationError;
}

/** What SignIn is built from. */
export interface SignInDeps {
  usersRepo: UsersRepo;
  users: UsersService;
  tokens: TokensService;
  providers: ProvidersService;
  hasher: PasswordHasher;
  limits: LoginLimits;
  /** Writes a sign-in's token once its proof checked out (the same one passkeys and the second factor use). */
  signInTokens: SignInTokens;
  /** Every sign-in and every wrong password for an existing account goes to the security log. */
  activity: SecurityActivity;
  /** An account with a second factor on gets a challenge instead of a token; none without it. */
  secondFactor?: SecondFactorGate;
}

/** Sign-in by email and password or through an identity provider, and sign-out. */
export class SignIn {
  private readonly loginFailures: RateCounter;
  private readonly accountFailures: RateCounter;
  private readonly secondFactor: SecondFactorGate;

  constructor(private readonly deps: SignInDeps) {
    this.loginFailures = deps.limits.loginFailures;
    this.accountFailures = deps.limits.accountFailures ?? unlimited;
    this.secondFactor = deps.secondFactor ?? NO_SECOND_FACTOR;
  }

  /** Email and password, throttled (see `throttled`). */
  loginWithEmail(
    email: string,
    password: string,
    client: ClientInfo,
    /** The account of `email` when the caller has read it already (the login rule does); read here if not. */
    account?: UserWithProviders,
  ): Promise<SignedIn> {
    return this.throttled(email, client, account, (knownDevice) =>
      this.signInWithPassword(email, password, client, account, knownDevice),
    );
  }

  /**
   * The account of `email` once `password` proved right, under the same counters as an email login (a
   * guesser gains nothing by guessing here), without signing in: taking a scheduled deletion back. A wrong
   * password is the login's 401, an unknown email its 422, a disabled account its 401 account_disabled.
   */
  provePassword(email: string, password: string, client: ClientInfo): Promise<UserWithProviders> {
    return this.throttled(email, client, undefined, async () => {
      const user = await this.accountOf(email);
      await this.checkPassword(user, password);
      if (user.disabled_at !== null) throw new AccountDisabledError();
      return user;
    });
  }

  /**
   * Password checks throttled per (email, IP): guessing one account's password from one address stops after
   * a few failures, while the same address can still sign in to another account, and the account's owner
   * from another address (so an attacker cannot lock a user out). The per-IP limit, on the route, caps
   * guessing across many accounts.
   */
  private throttled<T>(
    email: string,
    client: ClientInfo,
    account: UserWithProviders | undefined,
    /** Given whether the request comes from a device the account signed in on before. */
    attempt: (knownDevice: boolean) => Promise<T>,
  ): Promise<T> {
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
          () => attempt(known),
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
    const owner = await this.deps.tokens.issuedTo(deviceToken);
    if (owner === undefined) return false;
    return (account ?? (await this.deps.usersRepo.findByEmail(email)))?.id === owner;
  }

  /**
   * Checks the password, then issues the token (SignInTokens): at most two checks. The sign-in is logged
   * right after the token's statement, in one INSERT (the login's only other write); a wrong password for
   * this existing account is logged as a counted failure.
   */
  private async signInWithPassword(
    email: string,
    password: string,
    client: ClientInfo,
    account: UserWithProviders | undefined,
    knownDevice: boolean,
  ): Promise<SignedIn> {
    let user = await this.accountOf(email, account);
    try {
      let issue = await this.checkAndIssue(user, password, client, knownDevice);
      if (issue.kind === 'password-changed') {
        // The hash changed since it was checked: a password change (this login proved the old password: no
        // token), or a parallel login's upgrade of the same password. One more check against the hash as it
        // is now tells the two apart.
        user = await this.accountOf(email);
        issue = await this.checkAndIssue(user, password, client, knownDevice);
      }
      if (issue.kind === 'disabled') throw new AccountDisabledError();
      if (issue.kind === 'deletion-scheduled') throw new AccountDeletionScheduledError(issue.scheduledFor);
      if (issue.kind === 'password-changed') throw new InvalidCredentialsError();
      await this.deps.activity.recordSignIn({ user, method: 'email', client, knownDevice });
      return {
        user: { ...(await this.deps.users.view(user, user.linked_providers)), api_token: issue.token.token },
      };
    } catch (error) {
      if (error instanceof InvalidCredentialsError) {
        await this.deps.activity.recordFailedSignIn(user.id, 'email', client);
      }
      throw error;
    }
  }

  /** The account of `email` (`known` when the caller read it already); an unknown email is the 422. */
  private async accountOf(email: string, known?: UserWithProviders): Promise<UserWithProviders> {
    const user = known ?? (await this.deps.usersRepo.findWithProvidersByEmail(email));
    if (!user) throw ValidationError.notFound('email');
    return user;
  }

  /** A wrong password and an account without one both get the same 401; the hash that matched otherwise. */
  private async checkPassword(user: UserWithProviders, password: string): Promise<string> {
    const matches = user.password_hash
      ? await this.deps.hasher.verify(user.password_hash, password)
      : await this.deps.hasher.verifyNothing(password);
    if (!matches || user.password_hash === null) throw new InvalidCredentialsError();
    return user.password_hash;
  }

  private async checkAndIssue(
    user: UserWithProviders,
    password: string,
    client: ClientInfo,
    knownDevice: boolean,
  ) {
    const hash = await this.checkPassword(user, password);
    // Said only now that the password proved right: a guesser never learns that an account is disabled, or
    // that its deletion is scheduled.
    if (user.disabled_at !== null) throw new AccountDisabledError();
    if (user.deletion_due_at !== null) throw new AccountDeletionScheduledError(user.deletion_due_at);
    await this.secondFactor.demandIfEnabled(
      user.id,
      { method: 'email', knownDevice },
      user.second_factor_enabled,
    );
    return this.deps.signInTokens.afterPassword(user.id, hash, password, client.userAgent);
  }

  /**
   * Throttled per (identity, IP) like email login. Only a token the provider rejects counts as a failure: a
   * not-registered identity was vouched for by the provider, so it is no guess.
   */
  loginWithProvider(credentials: ProviderCredentials, client: ClientInfo): Promise<SignedIn> {
    return throttledAttempt(
      this.loginFailures,
      attemptKey(`${credentials.provider}:${credentials.userId}`, client.ip),
      () => this.signInWithProvider(credentials, client),
      (error) => error instanceof InvalidCredentialsError,
    );
  }

  private async signInWithProvider(credentials: ProviderCredentials, client: ClientInfo): Promise<SignedIn> {
    const method = credentials.provider;
    try {
      await this.deps.providers.verify(credentials);
    } catch (error) {
      // A rejected token for an identity linked to an account is a failed sign-in of that account: one read,
      // on the refusal's path only.
      if (error instanceof InvalidCredentialsError) {
        const holder = await this.deps.providers.userOfIdentity(credentials);
        if (holder) await this.deps.activity.recordFailedSignIn(holder.id, method, client);
      }
      throw error;
    }
    const user = await this.deps.providers.userOfIdentity(credentials);
    if (!user) throw new NotRegisteredError();
    // After the provider vouched for the identity, so only its holder learns the account is disabled or
    // scheduled for deletion.
    if (user.disabled_at !== null) throw new AccountDisabledError();
    if (user.deletion_due_at !== null) throw new AccountDeletionScheduledError(user.deletion_due_at);
    const knownDevice =
      client.deviceToken !== undefined && (await this.deps.tokens.issuedTo(client.deviceToken)) === user.id;
    await this.secondFactor.demandIfEnabled(user.id, { method, knownDevice });
    // The token and the sign-in's event (and a new-device alert) commit together; the alert is sent after.
    const { token, alert } = await this.deps.signInTokens.afterProvider(user.id, client.userAgent, (trx) =>
      this.deps.activity.recordSignIn({ user, method, client, knownDevice }, trx),
    );
    this.deps.activity.send(alert);
    return { user: { ...(await this.deps.users.view(user)), api_token: token.token } };
  }

  async logout(auth: AuthContext): Promise<void> {
    await this.deps.tokens.revoke(auth.tokenId);
  }
}
