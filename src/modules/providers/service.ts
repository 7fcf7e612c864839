import type { UserRow } from '../../db/schema.js';
import { type Executor, writeTransaction } from '../../db/transaction.js';
import { NotFoundError, ValidationError } from '../../errors.js';
import type { AuthContext } from '../../lib/auth-context.js';
import type { ProviderVerifier, VerifiedIdentity } from '../../providers/verifier.js';
import type { LinkedProviders, UsersService } from '../users/service.js';
import type { UserView } from '../users/view.js';
import { type ProviderCredentials, userIdField } from './credentials.js';
import type { Reauthenticator, ReauthProof } from './reauth-service.js';
import { IDENTITY_INDEX, type ProviderAccountsRepo, USER_PROVIDER_INDEX } from './repo.js';

/**
 * Provider identities: verified with the provider on every use (sign-up, login, link), never trusted on the
 * app's word; the provider's tokens are used once and never stored.
 */
export class ProvidersService implements LinkedProviders {
  constructor(
    private readonly db: Executor,
    private readonly links: ProviderAccountsRepo,
    private readonly verifiers: ReadonlyMap<string, ProviderVerifier>,
    private readonly users: UsersService,
    /** Linking and unlinking change how the account signs in: the owner proves it is them first. */
    private readonly reauth: Reauthenticator,
  ) {}

  namesFor(userId: string): Promise<string[]> {
    return this.links.namesFor(userId);
  }

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

  /**
   * Links a verified identity to the signed-in user, once the owner re-authenticated (a thief's session
   * must not add the thief's own identity as a way in); linking the same identity again changes nothing.
   */
  async link(
    auth: AuthContext,
    credentials: ProviderCredentials,
    proof: ReauthProof,
  ): Promise<{ user: UserView }> {
    const { user } = auth;
    await this.reauth.confirm(user, proof);
    await this.verify(credentials);
    const field = userIdField(credentials.provider);
    const linked = await this.links.findLinkedId(user.id, credentials.provider);
    if (linked === credentials.userId) return { user: await this.users.view(user) };
    if (linked !== undefined) {
      throw new ValidationError({
        [field]: [{ rule: 'provider_linked', params: { provider: credentials.provider } }],
      });
    }
    await writeTransaction(
      this.db,
      (trx) => this.linkWithin(trx, user.id, credentials),
      (constraint) => this.fieldOfIndex(credentials.provider, constraint),
    );
    return { user: await this.users.view(user) };
  }

  /**
   * Removes the user's link to this provider, unless it is their last way to sign in, once the owner
   * re-authenticated (a thief's session must not remove the owner's way back in).
   */
  async unlink(auth: AuthContext, provider: string, proof: ReauthProof): Promise<{ user: UserView }> {
    const { user } = auth;
    await this.reauth.confirm(user, proof);
    await writeTransaction(this.db, async (trx) => {
      const names = await this.links.with(trx).lockNamesFor(user.id);
      if (!names.includes(provider)) return;
      if (user.password_hash === null && names.length === 1) {
        throw new ValidationError({ provider: [{ rule: 'last_sign_in_method', params: { provider } }] });
      }
      await this.links.with(trx).delete(user.id, provider);
    });
    return { user: await this.users.view(user) };
  }
}
