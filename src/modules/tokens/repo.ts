import { type Expression, type ExpressionBuilder, type SqlBool, sql } from 'kysely';
import { linkedProviderNames } from '../../db/linked-providers.js';
import { Precompiled } from '../../db/precompiled.js';
import type { Database, UserRow } from '../../db/schema.js';
import type { Executor } from '../../db/transaction.js';
import { type UserJson, userFromJson } from '../../db/user-json.js';
import { ambientTraceparent } from '../../lib/tracing.js';
import type { SessionMethod, SessionRevokedReason } from '../account-events/types.js';
import { INSERT_IF_SIGN_IN_HOLDS, INSERT_TOKEN, type NewToken, sessionCreated } from './issue.js';

export type { NewToken } from './issue.js';

/** What the token lookup of an authenticated request reads, in one statement. */
export interface LiveOwner {
  user: UserRow;
  tokenId: string;
  /** Whether the token's `last_used_at` is due to be written (`touch`): never written, or a minute old. */
  touchDue: boolean;
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

/** A token last used over a minute ago (or never): its use is written again, at most once a minute. */
const touchDue = (eb: ExpressionBuilder<Database, 'api_tokens'>) =>
  eb.or([
    eb('api_tokens.last_used_at', 'is', null),
    eb('api_tokens.last_used_at', '<', sql<Date>`now() - interval '1 minute'`),
  ]);

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
    // The owner's row as one JSON column: node-postgres prepares a parser per column of every result, which
    // for the row's columns was most of what this statement cost the service (docs/performance.md).
    .select(sql<UserJson>`to_jsonb(users.*)`.as('owner'))
    // Decided by the database's clock, as `touch` re-checks it, and a boolean is cheaper to read than a time.
    .select((eb) => ['api_tokens.id as token_id', touchDue(eb).as('token_touch_due')])
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

/** A token that goes: the `session.revoked` event's reason is said by the caller. */
type TokenFilter = (eb: ExpressionBuilder<Database, 'api_tokens'>) => Expression<SqlBool>;

export class TokensRepo {
  constructor(private readonly db: Executor) {}

  with(trx: Executor): TokensRepo {
    return new TokensRepo(trx);
  }

  /** The token and its `session.created` event, in one statement. */
  async insert(token: NewToken, method: SessionMethod): Promise<void> {
    await INSERT_TOKEN.execute(this.db, { token, event: sessionCreated(token, method), method });
  }

  /** `insert`, if the sign-in still holds (INSERT_IF_SIGN_IN_HOLDS); false when it wrote nothing. */
  async insertIfSignInHolds(token: NewToken, checkedHash: string, method: SessionMethod): Promise<boolean> {
    const event = sessionCreated(token, method);
    const rows = await INSERT_IF_SIGN_IN_HOLDS.execute(this.db, { token, checkedHash, event });
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
    return {
      user: userFromJson(row.owner),
      tokenId: row.token_id,
      touchDue: row.token_touch_due === true,
      linkedProviders: row.token_linked_providers ?? [],
    };
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
      .where(touchDue)
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
  async deleteOwn(userId: string, id: string, reason: SessionRevokedReason): Promise<boolean> {
    return (await this.revoke(reason, (eb) => eb.and([eb('id', '=', id), eb('user_id', '=', userId)]))) > 0;
  }

  /** Every token of the user but one (a password change signs out every other session). */
  async deleteAllBut(userId: string, keepId: string, reason: SessionRevokedReason): Promise<void> {
    await this.revoke(reason, (eb) => eb.and([eb('user_id', '=', userId), eb('id', '<>', keepId)]));
  }

  /** Deletes one token by id, whoever owns it; says whether there was one. */
  async deleteById(id: string, reason: SessionRevokedReason): Promise<boolean> {
    return (await this.revoke(reason, (eb) => eb('id', '=', id))) > 0;
  }

  /**
   * Deletes every token of the user (on the (user_id, created_at) index): an operator's revoke, a password
   * reset, a deletion. Returns how many there were.
   */
  deleteAllOf(userId: string, reason: SessionRevokedReason): Promise<number> {
    return this.revoke(reason, (eb) => eb('user_id', '=', userId));
  }

  /**
   * Deletes the tokens `which` selects, each with its `session.revoked` event, in one statement: an event
   * exactly for each token that was there. The events' ids are drawn by the database (only it knows how many
   * rows go); events are ordered by `occurred_at`, not by id. Returns how many went.
   */
  private async revoke(reason: SessionRevokedReason, which: TokenFilter): Promise<number> {
    const rows = await this.db
      .with('revoked', (qc) => qc.deleteFrom('api_tokens').where(which).returning(['id', 'user_id']))
      .insertInto('account_events')
      .columns(['id', 'type', 'user_id', 'data', 'traceparent'])
      .expression((eb) =>
        eb
          .selectFrom('revoked')
          .select([
            sql<string>`gen_random_uuid()`.as('id'),
            sql<string>`'session.revoked'`.as('type'),
            'revoked.user_id',
            sql<string>`jsonb_build_object('user_id', revoked.user_id, 'session_id', revoked.id, 'reason', ${reason}::text)`.as(
              'data',
            ),
            sql<string | null>`${ambientTraceparent()}::text`.as('traceparent'),
          ]),
      )
      .returning('account_events.id')
      .execute();
    return rows.length;
  }
}
