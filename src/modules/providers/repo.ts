import type { UserRow } from '../../db/schema.js';
import type { Executor } from '../../db/transaction.js';

/** The unique index on (provider, provider_user_id): one account per provider identity. */
export const IDENTITY_INDEX = 'provider_accounts_identity_key';
/** The primary key (user_id, provider): one identity per provider per user. */
export const USER_PROVIDER_INDEX = 'provider_accounts_pkey';

export interface ProviderLink {
  userId: string;
  provider: string;
  providerUserId: string;
}

export class ProviderAccountsRepo {
  constructor(private readonly db: Executor) {}

  with(trx: Executor): ProviderAccountsRepo {
    return new ProviderAccountsRepo(trx);
  }

  /** The user's linked provider names, in one query on the primary key. */
  async namesFor(userId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('provider_accounts')
      .select('provider')
      .where('user_id', '=', userId)
      .orderBy('provider')
      .execute();
    return rows.map((row) => row.provider);
  }

  /** The user's links as they are stored (the data export), on the primary key. */
  linksOf(userId: string): Promise<{ provider: string; provider_user_id: string; created_at: Date }[]> {
    return this.db
      .selectFrom('provider_accounts')
      .select(['provider', 'provider_user_id', 'created_at'])
      .where('user_id', '=', userId)
      .orderBy('provider')
      .execute();
  }

  /** The user's linked identities as (provider, provider user id) pairs, on the primary key. */
  async identitiesOf(userId: string): Promise<[string, string][]> {
    const rows = await this.db
      .selectFrom('provider_accounts')
      .select(['provider', 'provider_user_id'])
      .where('user_id', '=', userId)
      .execute();
    return rows.map((row) => [row.provider, row.provider_user_id]);
  }

  /** The user this identity is linked to: one probe of the identity index and one of the users key. */
  findUserByIdentity(provider: string, providerUserId: string): Promise<UserRow | undefined> {
    return this.db
      .selectFrom('provider_accounts')
      .innerJoin('users', 'users.id', 'provider_accounts.user_id')
      .selectAll('users')
      .where('provider_accounts.provider', '=', provider)
      .where('provider_accounts.provider_user_id', '=', providerUserId)
      .executeTakeFirst();
  }

  /** The identity the user has linked at this provider, if any. */
  async findLinkedId(userId: string, provider: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('provider_accounts')
      .select('provider_user_id')
      .where('user_id', '=', userId)
      .where('provider', '=', provider)
      .executeTakeFirst();
    return row?.provider_user_id;
  }

  /**
   * The user's links, locked until the transaction ends: two unlinks of one user run one after the other,
   * so together they can never remove the last way to sign in.
   */
  async lockNamesFor(userId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('provider_accounts')
      .select('provider')
      .where('user_id', '=', userId)
      .forUpdate()
      .execute();
    return rows.map((row) => row.provider);
  }

  async insert(link: ProviderLink): Promise<void> {
    await this.db
      .insertInto('provider_accounts')
      .values({ user_id: link.userId, provider: link.provider, provider_user_id: link.providerUserId })
      .execute();
  }

  async delete(userId: string, provider: string): Promise<void> {
    await this.db
      .deleteFrom('provider_accounts')
      .where('user_id', '=', userId)
      .where('provider', '=', provider)
      .execute();
  }
}
