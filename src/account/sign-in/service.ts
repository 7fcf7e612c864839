import type { UserRow, UserWithProviders } from '../../db/schema.js';
import { InvalidCredentialsError, NotRegisteredError, ValidationError } from '../../errors.js';
import type { AuthContext } from '../../http/auth-context.js';
import type { PasswordHasher } from '../../lib/passwords.js';
import { accountKey, attemptKey } from '../../limits/rate-counter.js';
import type { ProviderCredentials } from '../../modules/providers/credentials.js';
import type { ProvidersService } from '../../modules/providers/service.js';
import type { TokensService } from '../../modules/tokens/service.js';
import type { UsersRepo } from '../../modules/users/repo.js';
import type { UsersService } from '../../modules/users/service.js';
import type { SignedIn } from '../../modules/users/view.js';
import type { ClientInfo } from '../client.js';
import type { SecurityActivity } from '../security-activity/recorder.js';
import { answered, refused, type SignInOutcome } from './admission.js';
import { LoginAttempts, type LoginLimits } from './login-attempts.js';
import type { SessionGate } from './session-gate.js';
import type { SignInTokens } from './tokens.js';

/** What SignIn is built from. */
export interface SignInDeps {
  usersRepo: UsersRepo;
  users: UsersService;
  tokens: TokensService;
  providers: ProvidersService;
  hasher: PasswordHasher;
  limits: LoginLimits;
  /** Whether the account may have a session now. */
  gate: SessionGate;
  /** Writes the session's token once the gate admitted it, the gate's rule applied again under a lock. */
  sessionTokens: SignInTokens;
  /** Every sign-in and every wrong password for an existing account goes to the security log. */
  activity: SecurityActivity;
}

/** Sign-in by email and password or through an identity provider, and sign-out. */
export class SignIn {
  private readonly attempts: LoginAttempts;

  constructor(private readonly deps: SignInDeps) {
    this.attempts = new LoginAttempts(deps.limits);
  }

  /** `login`, answered as the route does: the session, or the outcome's error thrown (in-process callers). */
  async loginWithEmail(
    email: string,
    password: string,
    client: ClientInfo,
    account?: UserWithProviders,
  ): Promise<SignedIn> {
    return answered(await this.login(email, password, client, account));
  }

  /** Email and password, under the login-attempt policy (the keys: `emailAttempt`). */
  login(
    email: string,
    password: string,
    client: ClientInfo,
    /** The account of `email` when the caller has read it already (the login rule does); read here if not. */
    account?: UserWithProviders,
  ): Promise<SignInOutcome> {
    let knownDevice = false;
    return this.attempts.run(
      this.emailAttempt(email, client, account, (known) => {
        knownDevice = known;
      }),
      () => this.signInWithPassword(email, password, client, account, knownDevice),
    );
  }

  /**
   * `then` the account of `email` once `password` proved right, under the same counters as an email login (a
   * guesser gains nothing by guessing here): taking a scheduled deletion back. A wrong password is the
   * login's 401, an unknown email its 422; what `then` answers counts as no guess.
   */
  provePassword(
    email: string,
    password: string,
    client: ClientInfo,
    then: (user: UserWithProviders, knownDevice: boolean) => Promise<SignInOutcome>,
  ): Promise<SignInOutcome> {
    let knownDevice = false;
    let guessed = false;
    return this.attempts.run(
      this.emailAttempt(email, client, undefined, (known) => {
        knownDevice = known;
      }),
      async () => {
        const user = await this.deps.usersRepo.findWithProvidersByEmail(email);
        if (!user) {
          guessed = true;
          return refused(ValidationError.notFound('email'));
        }
        if ((await this.checkPassword(user, password)) === undefined) {
          guessed = true;
          return refused(new InvalidCredentialsError());
        }
        return then(user, knownDevice);
      },
      () => guessed,
    );
  }

  /**
   * Password checks are counted per (email, IP): guessing one account's password from one address stops
   * after a few failures, while the same address can still sign in to another account, and the account's
   * owner from another address (so an attacker cannot lock a user out). Guesses spread over many addresses
   * are capped per account too. That cap would also lock the owner out while an attack lasts, so a device
   * the owner signed in on before (it presents a token of this account) is not held to it; the
   * per-(email, IP) limit still is. The per-IP limit, on the route, caps guessing across many accounts.
   */
  private emailAttempt(
    email: string,
    client: ClientInfo,
    account: UserWithProviders | undefined,
    onKnownDevice: (known: boolean) => void,
  ) {
    const identifier = `email:${email.toLowerCase()}`;
    return {
      pair: attemptKey(identifier, client.ip),
      account: async () => {
        const known = await this.isKnownDevice(email, client.deviceToken, account);
        onKnownDevice(known);
        return known ? undefined : accountKey(identifier);
      },
    };
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
   * Checks the password, then asks the gate and has the token written: at most two checks. The sign-in is
   * logged right after the token's statement, in one INSERT (the login's only other write); a wrong password
   * for this existing account is logged as a counted failure.
   */
  private async signInWithPassword(
    email: string,
    password: string,
    client: ClientInfo,
    account: UserWithProviders | undefined,
    knownDevice: boolean,
  ): Promise<SignInOutcome> {
    let user = account ?? (await this.deps.usersRepo.findWithProvidersByEmail(email));
    if (!user) return refused(ValidationError.notFound('email'));
    let issue = await this.checkAndIssue(user, password, client, knownDevice);
    if (issue.kind === 'password-changed') {
      // The hash changed since it was checked: a password change (this login proved the old password: no
      // token), or a parallel login's upgrade of the same password. One more check against the hash as it
      // is now tells the two apart.
      user = await this.deps.usersRepo.findWithProvidersByEmail(email);
      if (!user) return refused(ValidationError.notFound('email'));
      issue = await this.checkAndIssue(user, password, client, knownDevice);
    }
    if (issue.kind === 'wrong' || issue.kind === 'password-changed') {
      await this.deps.activity.recordFailedSignIn(user.id, 'email', client);
      return refused(new InvalidCredentialsError());
    }
    if (issue.kind !== 'issued') return issue;
    await this.deps.activity.recordSignIn({ user, method: 'email', client, knownDevice });
    const view = await this.deps.users.view(user, user.linked_providers);
    return { kind: 'session', signedIn: { user: { ...view, api_token: issue.token.token } } };
  }

  /** A wrong password and an account without one alike: undefined; the hash that matched otherwise. */
  private async checkPassword(user: UserWithProviders, password: string): Promise<string | undefined> {
    const matches = user.password_hash
      ? await this.deps.hasher.verify(user.password_hash, password)
      : await this.deps.hasher.verifyNothing(password);
    return matches && user.password_hash !== null ? user.password_hash : undefined;
  }

  private async checkAndIssue(
    user: UserWithProviders,
    password: string,
    client: ClientInfo,
    knownDevice: boolean,
  ) {
    const hash = await this.checkPassword(user, password);
    if (hash === undefined) return { kind: 'wrong' as const };
    // Asked only now that the password proved right: a guesser never learns that an account is disabled, or
    // that its deletion is scheduled.
    const answer = await this.deps.gate.admit(
      user,
      { method: 'email', knownDevice },
      { factors: 1, purpose: 'sign_in' },
    );
    if (answer.kind === 'second_factor') return answer;
    if (answer.kind === 'refused') return refused(answer.error);
    const issue = await this.deps.sessionTokens.afterPassword(user.id, hash, password, client.userAgent);
    return issue.kind === 'refused' ? refused(issue.error) : issue;
  }

  /**
   * Counted per (identity, IP) like email login. Only a token the provider rejects counts as a failure: a
   * not-registered identity was vouched for by the provider, so it is no guess.
   */
  loginWithProvider(credentials: ProviderCredentials, client: ClientInfo): Promise<SignInOutcome> {
    return this.attempts.run(
      { pair: attemptKey(`${credentials.provider}:${credentials.userId}`, client.ip) },
      () => this.signInWithProvider(credentials, client),
      (error) => error instanceof InvalidCredentialsError,
    );
  }

  private async signInWithProvider(
    credentials: ProviderCredentials,
    client: ClientInfo,
  ): Promise<SignInOutcome> {
    const method = credentials.provider;
    try {
      await this.deps.providers.verify(credentials);
    } catch (error) {
      // A rejected token for an identity linked to an account is a failed sign-in of that account: one read,
      // on the refusal's path only.
      if (!(error instanceof InvalidCredentialsError)) throw error;
      const holder = await this.deps.providers.userOfIdentity(credentials);
      if (holder) await this.deps.activity.recordFailedSignIn(holder.id, method, client);
      return refused(error);
    }
    const user = await this.deps.providers.userOfIdentity(credentials);
    if (!user) return refused(new NotRegisteredError());
    const knownDevice =
      client.deviceToken !== undefined && (await this.deps.tokens.issuedTo(client.deviceToken)) === user.id;
    // After the provider vouched for the identity, so only its holder learns the account is disabled or
    // scheduled for deletion.
    const answer = await this.deps.gate.admit(
      user,
      { method, knownDevice },
      { factors: 1, purpose: 'sign_in' },
    );
    if (answer.kind === 'second_factor') return answer;
    if (answer.kind === 'refused') return refused(answer.error);
    // The token and the sign-in's event (and a new-device alert) commit together; the alert is sent after.
    const issue = await this.deps.sessionTokens.afterProvider(user.id, client.userAgent, (trx) =>
      this.deps.activity.recordSignIn({ user, method, client, knownDevice }, trx),
    );
    if (issue.kind === 'refused') return refused(issue.error);
    if (issue.kind !== 'issued') return refused(new InvalidCredentialsError());
    this.deps.activity.send(issue.alongside);
    const view = await this.deps.users.view(user);
    return { kind: 'session', signedIn: { user: { ...view, api_token: issue.token.token } } };
  }

  async logout(auth: AuthContext): Promise<void> {
    await this.deps.tokens.revoke(auth.tokenId);
  }
}
