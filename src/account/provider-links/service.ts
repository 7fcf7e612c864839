import { type Executor, writeTransaction } from '../../db/transaction.js';
import { ValidationError } from '../../errors.js';
import type { AuthContext } from '../../http/auth-context.js';
import { type ProviderCredentials, userIdField } from '../../modules/providers/credentials.js';
import type { ProviderAccountsRepo } from '../../modules/providers/repo.js';
import type { ProvidersService } from '../../modules/providers/service.js';
import type { UsersService } from '../../modules/users/service.js';
import type { UserView } from '../../modules/users/view.js';
import type { ClientInfo } from '../client.js';
import type { Reauthentication, ReauthProof } from '../reauth/service.js';
import type { SecurityActivity } from '../security-activity/recorder.js';
import { keepsAWayIn, type SignInMethodsReader } from '../sign-in-methods.js';

/** What ProviderLinks is built from. */
export interface ProviderLinksDeps {
  db: Executor;
  links: ProviderAccountsRepo;
  /** Verifies the identity with its provider and writes the link (as sign-up does). */
  providers: ProvidersService;
  users: UsersService;
  reauth: Reauthentication;
  /** A link or unlink is logged, and its alert mailed, in its transaction. */
  activity: SecurityActivity;
  /** The account's ways to sign in, locked (a password, the providers, the passkeys). */
  methods: SignInMethodsReader;
}

/**
 * The signed-in user adding or removing a provider identity as a way to sign in. Both change how the account
 * signs in, so the owner proves it is them first: a thief's session must neither add the thief's own
 * identity as a way in nor remove the owner's way back in.
 */
export class ProviderLinks {
  constructor(private readonly deps: ProviderLinksDeps) {}

  /**
   * Links a verified identity to the signed-in user, once the owner re-authenticated; linking the same
   * identity again changes nothing.
   */
  async link(
    auth: AuthContext,
    credentials: ProviderCredentials,
    proof: ReauthProof,
    client: ClientInfo,
  ): Promise<{ user: UserView }> {
    const { user } = auth;
    await this.deps.reauth.confirm(auth, proof, 'provider_link');
    await this.deps.providers.verify(credentials);
    const field = userIdField(credentials.provider);
    const linked = await this.deps.links.findLinkedId(user.id, credentials.provider);
    if (linked === credentials.userId) return { user: await this.deps.users.view(user) };
    if (linked !== undefined) {
      throw new ValidationError({
        [field]: [{ rule: 'provider_linked', params: { provider: credentials.provider } }],
      });
    }
    const alert = await writeTransaction(
      this.deps.db,
      async (trx) => {
        await this.deps.providers.linkWithin(trx, user.id, credentials);
        const details = { provider: credentials.provider };
        return this.deps.activity.record({ user, type: 'provider_linked', client, details }, trx);
      },
      (constraint) => this.deps.providers.fieldOfIndex(credentials.provider, constraint),
    );
    this.deps.activity.send(alert);
    return { user: await this.deps.users.view(user) };
  }

  /**
   * Removes the user's link to this provider, unless it is their last way to sign in (no password, no other
   * provider, no passkey), once the owner re-authenticated.
   */
  async unlink(
    auth: AuthContext,
    provider: string,
    proof: ReauthProof,
    client: ClientInfo,
  ): Promise<{ user: UserView }> {
    const { user } = auth;
    await this.deps.reauth.confirm(auth, proof, 'provider_link');
    const alert = await writeTransaction(this.deps.db, async (trx) => {
      const methods = await this.deps.methods.lockedFor(trx, user.id);
      // Nothing to remove, nothing to log.
      if (methods === undefined || !methods.providers.includes(provider)) return undefined;
      // A passkey or a password left is a way back in; nothing left is the 422.
      if (!keepsAWayIn(methods, { provider })) {
        throw new ValidationError({ provider: [{ rule: 'last_sign_in_method', params: { provider } }] });
      }
      await this.deps.links.with(trx).delete(user.id, provider);
      return this.deps.activity.record(
        { user, type: 'provider_unlinked', client, details: { provider } },
        trx,
      );
    });
    this.deps.activity.send(alert);
    return { user: await this.deps.users.view(user) };
  }
}
