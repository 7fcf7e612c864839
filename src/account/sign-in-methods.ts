import type { Executor } from '../db/transaction.js';
import type { PasskeysRepo } from '../modules/passkeys/repo.js';
import type { ProviderAccountsRepo } from '../modules/providers/repo.js';
import type { UsersRepo } from '../modules/users/repo.js';

/** The ways an account can sign in, as one transaction sees them. */
export interface SignInMethods {
  password: boolean;
  providers: string[];
  passkeys: number;
}

/**
 * Reads how an account signs in, inside the caller's transaction, with the user's row locked first: every
 * change that may remove a way to sign in (unlinking a provider, removing a passkey) takes this lock, so two
 * of them run one after the other and together never remove the last way in. Undefined when the user is gone.
 */
export class SignInMethodsReader {
  constructor(
    private readonly users: UsersRepo,
    private readonly providers: ProviderAccountsRepo,
    private readonly passkeys: PasskeysRepo,
  ) {}

  async lockedFor(trx: Executor, userId: string): Promise<SignInMethods | undefined> {
    const state = await this.users.with(trx).signInState(userId, 'update');
    if (state === undefined) return undefined;
    return {
      password: state.password_hash !== null,
      providers: await this.providers.with(trx).lockNamesFor(userId),
      passkeys: await this.passkeys.with(trx).countFor(userId),
    };
  }
}

/** Whether the account keeps a way to sign in once `removing` of its methods is gone. */
export function keepsAWayIn(
  methods: SignInMethods,
  removing: { provider?: string; passkeys?: number },
): boolean {
  const providers = methods.providers.filter((name) => name !== removing.provider).length;
  return methods.password || providers > 0 || methods.passkeys - (removing.passkeys ?? 0) > 0;
}
