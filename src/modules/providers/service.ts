import { type Executor, writeTransaction } from '../../db/transaction.js';
import {
  AccountDisabledError,
  InvalidCredentialsError,
  NotFoundError,
  NotRegisteredError,
  ValidationError,
} from '../../errors.js';
import { attemptKey, type RateCounter, throttledAttempt } from '../../limits/rate-counter.js';
import type { ProviderVerifier, VerifiedIdentity } from '../../providers/verifier.js';
import type { TokensService } from '../tokens/service.js';
import type { UsersService } from '../users/service.js';
import type { SignedIn } from '../users/view.js';
import { type ProviderCredentials, userIdField } from './credentials.js';
import { IDENTITY_INDEX, type ProviderAccountsRepo, USER_PROVIDER_INDEX } from './repo.js';

/** Who is logging in: the user agent names the token; the IP keys login throttling. */
export interface LoginClient {
  userAgent: string | undefined;
  ip: string;
}

/**
 * Provider identities: verified with the provider on every use (sign-up, login, link), never trusted on the
 * app's word; the provider's tokens are used once and never stored.
 */
export class ProvidersService {
  constructor(
    private readonly db: Executor,
    private readonly links: ProviderAccountsRepo,
    private readonly verifiers: ReadonlyMap<string, ProviderVerifier>,
    private readonly tokens: TokensService,
    private readonly users: UsersService,
    /** Failed logins per (provider identity, IP), the same counter as email logins: DESIGN §5. */
    private readonly loginFailures: RateCounter,
  ) {}

  /**
   * Asks the provider whether the token is genuine, issued to our app and names this user. Throws
   * InvalidCredentialsError or ProviderUnavailableError otherwise. Returns what the provider says of the
   * user's email.
   */
  async verify(credentials: ProviderCredentials): Promise<VerifiedIdentity> {
    const verifier = this.verifiers.get(credentials.provider);
    // Routes and register types exist only for configured providers; reaching here otherwise is a bug.
    if (!verifier) throw new NotFoundError(`provider ${credentials.provider}`);
    return verifier.verify(credentials.userId, credentials.accessToken);
  }

  /**
   * For sign-up: the identity is genuine and not linked to any account yet. Verified first, so that whether
   * an identity is registered is told only to someone who holds a token for it.
   */
  async confirmNewIdentity(credentials: ProviderCredentials): Promise<VerifiedIdentity> {
    const identity = await this.verify(credentials);
    if (await this.links.findUserByIdentity(credentials.provider, credentials.userId)) {
      throw ValidationError.taken(userIdField(credentials.provider));
    }
    return identity;
  }

  /** Links the identity inside the caller's transaction (sign-up writes user, link and token together). */
  async linkWithin(trx: Executor, userId: string, credentials: ProviderCredentials): Promise<void> {
    await this.links
      .with(trx)
      .insert({ userId, provider: credentials.provider, providerUserId: credentials.userId });
  }

  /** The request field a unique violation of provider_accounts stands for, when one does. */
  fieldOfIndex(provider: string, constraint: string | undefined): string | undefined {
    return constraint === IDENTITY_INDEX || constraint === USER_PROVIDER_INDEX
      ? userIdField(provider)
      : undefined;
  }

  /**
   * Throttled per (identity, IP) like email login. Only a token the provider rejects counts as a failure: a
   * not-registered identity was vouched for by the provider, so it is no guess.
   */
  login(credentials: ProviderCredentials, client: LoginClient): Promise<SignedIn> {
    return throttledAttempt(
      this.loginFailures,
      attemptKey(`${credentials.provider}:${credentials.userId}`, client.ip),
      () => this.verifyAndSignIn(credentials, client.userAgent),
      (error) => error instanceof InvalidCredentialsError,
    );
  }

  private async verifyAndSignIn(
    credentials: ProviderCredentials,
    tokenName: string | undefined,
  ): Promise<SignedIn> {
    await this.verify(credentials);
    const user = await this.links.findUserByIdentity(credentials.provider, credentials.userId);
    if (!user) throw new NotRegisteredError();
    // After the provider vouched for the identity, so only its holder learns the account is disabled.
    if (user.disabled_at !== null) throw new AccountDisabledError();
    const token = await writeTransaction(this.db, (trx) => this.tokens.issue(trx, user.id, tokenName));
    return { user: { ...(await this.users.view(user)), api_token: token.token } };
  }
}
