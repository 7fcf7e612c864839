import type { UserRow } from '../../db/schema.js';
import type { Executor } from '../../db/transaction.js';
import { NotFoundError, ValidationError } from '../../errors.js';
import type { ProviderVerifier, VerifiedIdentity } from '../../providers/verifier.js';
import { type ProviderCredentials, userIdField } from './credentials.js';
import { IDENTITY_INDEX, type ProviderAccountsRepo, USER_PROVIDER_INDEX } from './repo.js';

/**
 * Provider identities: verified with the provider on every use (sign-up, login, link), never trusted on the
 * app's word; the provider's tokens are used once and never stored.
 */
export class ProvidersService {
  constructor(
    private readonly links: ProviderAccountsRepo,
    private readonly verifiers: ReadonlyMap<string, ProviderVerifier>,
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

  /** The account the identity is linked to, if any (a sign-in asks once the provider vouched for it). */
  userOfIdentity(credentials: ProviderCredentials): Promise<UserRow | undefined> {
    return this.links.findUserByIdentity(credentials.provider, credentials.userId);
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
}
