import { type ExpressionBuilder, sql } from 'kysely';
import { linkedProviderNames } from '../../db/linked-providers.js';
import { Precompiled } from '../../db/precompiled.js';
import type { Database, UserRow } from '../../db/schema.js';
import type { Executor, TableInserter } from '../../db/transaction.js';

export interface NewToken {
  id: string;
  userId: string;
  tokenHash: Buffer;
  name: string | null;
  expiresAt: Date | null;
}

/** What the token lookup of an authenticated request reads, in one statement. */
export interface LiveOwner {
  user: UserRow;
  tokenId: string;
  lastUsedAt: Date | null;
  linkedProviders: string[];
}

export interface DeviceSummary {
  device_id: string;
  platform: string | null;
}

export interface TokenListRow {
  id: string;
  name: string | null;
  created_at: Date;
  last_used_at: Date | null;
  expires_at: Date | null;
  device: DeviceSummary | null;
}

/** A token that has not expired (tokens without an expiry live until revoked). */
const isLive = (eb: ExpressionBuilder<Database, 'api_tokens'>) =>
  eb.or([eb('api_tokens.expires_at', 'is', null), eb('api_tokens.expires_at', '>', sql<Date>`now()`)]);

/**
 * The owner of the live token with this digest, unless the owner is disabled, with the account's state (its
 * row, which carries the document versions it agreed to) and its linked providers: the one statement of every
 * authenticated request, compiled once (db/precompiled.ts).
 */
const LIVE_OWNER = new Precompiled(1, (db: Executor, tokenHash: Buffer) =>
  db
    .selectFrom('api_tokens')
    .innerJoin('users', 'users.id', 'api_tokens.user_id')
    .selectAll('users')
    .select(['api_tokens.id as token_id', 'api_tokens.last_used_at as token_last_used_at'])
    // The user's linked providers (user/get shows them) in the same round trip: the (user_id, provider)
    // primary key of provider_accounts, already in provider order.
    .select(linkedProviderNames.as('token_linked_providers'))
    .where('api_tokens.token_hash', '=', tokenHash)
    .where(isLive)
    // A disabled user's tokens stop working at once and work again when the user is enabled. An account
    // scheduled for deletion has no tokens (the scheduling revoked them); one issued by a sign-in that raced
    // the scheduling is refused all the same.
    .where('users.disabled_at', 'is', null)
    .where('users.deletion_scheduled_at', 'is', null),
);

/** The INSERT of a new token; also part of an email sign-up's one write. */
export function insertTokenQuery(db: TableInserter, token: NewToken) {
  return db.insertInto('api_tokens').values({
    id: token.id,
    user_id: token.userId,
    token_hash: token.tokenHash,
    name: token.name,
    expires_at: token.expiresAt,
  });
}

/** A new token (every sign-up writes one): compiled, and prepared on a server, once. */
const INSERT_TOKEN = Precompiled.named((db: Executor, token: NewToken) => insertTokenQuery(db, token));

/**
 * A sign-in's token, written only if the user's hash is still the one checked and the user is neither
 * disabled nor scheduled for deletion, the user row share-locked for the statement (the same lock the
 * transactional sign-in takes). The values are cast: in a SELECT list their types are not inferred from the
 * target columns.
 */
const INSERT_IF_SIGN_IN_HOLDS = Precompiled.named(
  (db: Executor, { token, checkedHash }: { token: NewToken; checkedHash: string }) =>
    db
      .insertInto('api_tokens')
      .columns(['id', 'user_id', 'token_hash', 'name', 'expires_at'])
      .expression((eb) =>
        eb
          .selectFrom('users')
          .select([
            sql<string>`${token.id}::uuid`.as('id'),
            'users.id as user_id',
            sql<Buffer>`${token.tokenHash}::bytea`.as('token_hash'),
            sql<string | null>`${token.name}::text`.as('name'),
            sql<Date | null>`${token.expiresAt}::timestamptz`.as('expires_at'),
          ])
          .where('users.id', '=', token.userId)
          .where('users.password_hash', '=', checkedHash)
          .where('users.disabled_at', 'is', null)
          .where('users.deletion_scheduled_at', 'is', null)
          .forShare(),
      )
      .returning('api_tokens.id'),
);

export class TokensRepo {
  constructor(private readonly db: Executor) {}

  with(trx: Executor): TokensRepo {
    return new TokensRepo(trx);
  }

  async insert(token: NewToken): Promise<void> {
    await INSERT_TOKEN.execute(this.db, token);
  }

  /** `insert`, if the sign-in still holds (INSERT_IF_SIGN_IN_HOLDS); false when it wrote nothing. */
  async insertIfSignInHolds(token: NewToken, checkedHash: string): Promise<boolean> {
    const rows = await INSERT_IF_SIGN_IN_HOLDS.execute(this.db, { token, checkedHash });
    return rows.length > 0;
  }

  /**
   * The owner of the live token with this digest, and the token's id, unless the owner is disabled: one
   * query, one probe of the unique token_hash index and one of the users primary key, then the owner's
   * provider links on theirs.
   */
  async findLiveOwner(tokenHash: Buffer): Promise<LiveOwner | undefined> {
    const [row] = await LIVE_OWNER.execute(this.db, tokenHash);
    if (!row) return undefined;
    const {
      token_id: tokenId,
      token_last_used_at: lastUsedAt,
      token_linked_providers: linkedProviders,
      ...user
    } = row;
    return { user, tokenId, lastUsedAt, linkedProviders: linkedProviders ?? [] };
  }

  /** The user a stored token (live or expired; a revoked one is gone) was issued to, on the token_hash index. */
  async findIssuedTo(tokenHash: Buffer): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('api_tokens')
      .select('user_id')
      .where('token_hash', '=', tokenHash)
      .executeTakeFirst();
    return row?.user_id;
  }

  /**
   * Records that the token was used, at most once a minute: the condition makes concurrent requests of one
   * client write once, and keeps a busy client from writing the row on every request.
   */
  async touch(id: string): Promise<void> {
    await this.db
      .updateTable('api_tokens')
      .set({ last_used_at: sql<Date>`now()` })
      .where('id', '=', id)
      .where((eb) =>
        eb.or([
          eb('last_used_at', 'is', null),
          eb('last_used_at', '<', sql<Date>`now() - interval '1 minute'`),
        ]),
      )
      .execute();
  }

  /**
   * The user's live tokens, newest first, each with the device it last registered (if any): one scan of the
   * (user_id, created_at) index and one probe of the devices api_token_id index per token.
   */
  listLive(userId: string): Promise<TokenListRow[]> {
    return this.db
      .selectFrom('api_tokens')
      .select((eb) => [
        'api_tokens.id',
        'api_tokens.name',
        'api_tokens.created_at',
        'api_tokens.last_used_at',
        'api_tokens.expires_at',
        eb
          .selectFrom('devices')
          .select(sql<DeviceSummary>`json_build_object('device_id', device_id, 'platform', platform)`.as('d'))
          .whereRef('devices.api_token_id', '=', 'api_tokens.id')
          .orderBy('devices.updated_at', 'desc')
          .limit(1)
          .as('device'),
      ])
      .where('api_tokens.user_id', '=', userId)
      .where(isLive)
      .orderBy('api_tokens.created_at', 'desc')
      .orderBy('api_tokens.id', 'desc')
      .execute();
  }

  /** Deletes the token only when it belongs to the user; says whether it did. */
  async deleteOwn(userId: string, id: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('api_tokens')
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  /** Every token of the user but one (a password change signs out every other session). */
  async deleteAllBut(userId: string, keepId: string): Promise<void> {
    await this.db.deleteFrom('api_tokens').where('user_id', '=', userId).where('id', '<>', keepId).execute();
  }

  async delete(id: string): Promise<void> {
    await this.db.deleteFrom('api_tokens').where('id', '=', id).execute();
  }

  /** Deletes one token by id, whoever owns it (operators); says whether there was one. */
  async deleteById(id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('api_tokens').where('id', '=', id).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  /**
   * Deletes every token of the user (on the (user_id, created_at) index): an operator's revoke, a password
   * reset. Returns how many there were.
   */
  async deleteAllOf(userId: string): Promise<number> {
    const result = await this.db.deleteFrom('api_tokens').where('user_id', '=', userId).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
