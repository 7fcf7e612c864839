import { sql } from 'kysely';
import type { UserRow } from '../../db/schema.js';
import type { Executor } from '../../db/transaction.js';
import { type UserJson, userFromJson } from '../../db/user-json.js';

/** A live session as the access tokens and the introspection describe it. */
export interface LiveSession {
  user: UserRow;
  tokenId: string;
  createdAt: Date;
  expiresAt: Date | null;
  /** The `session.created` event's method; null for a session older than the record of it. */
  signInMethod: string | null;
}

/** Never a token's id: what the lookup by id is given when there is no id to look for. */
const NO_ID = '00000000-0000-0000-0000-000000000000';

/** The sessions' facts the access tokens carry: read by the token's digest or by the session's id. */
export class SessionsRepo {
  constructor(private readonly db: Executor) {}

  /**
   * The live session whose token has this digest, or (for an access token) this id, unless its owner is
   * disabled or scheduled for deletion: one statement of the same shape whichever is asked, so that an
   * introspection takes the same path for every kind of token.
   */
  async findLive(lookup: { tokenHash: Buffer; id: string | undefined }): Promise<LiveSession | undefined> {
    const row = await this.db
      .selectFrom('api_tokens')
      .innerJoin('users', 'users.id', 'api_tokens.user_id')
      .select(sql<UserJson>`to_jsonb(users.*)`.as('owner'))
      .select([
        'api_tokens.id as token_id',
        'api_tokens.created_at as token_created_at',
        'api_tokens.expires_at as token_expires_at',
        'api_tokens.sign_in_method',
      ])
      .where((eb) =>
        eb.or([
          eb('api_tokens.token_hash', '=', lookup.tokenHash),
          eb('api_tokens.id', '=', lookup.id ?? NO_ID),
        ]),
      )
      .where((eb) =>
        eb.or([eb('api_tokens.expires_at', 'is', null), eb('api_tokens.expires_at', '>', sql<Date>`now()`)]),
      )
      .where('users.disabled_at', 'is', null)
      .where('users.deletion_scheduled_at', 'is', null)
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      user: userFromJson(row.owner),
      tokenId: row.token_id,
      createdAt: row.token_created_at,
      expiresAt: row.token_expires_at,
      signInMethod: row.sign_in_method,
    };
  }
}
