import { sql } from 'kysely';
import type { UserRow } from '../../db/schema.js';
import type { Executor } from '../../db/transaction.js';

export interface NewToken {
  id: string;
  userId: string;
  tokenHash: Buffer;
  name: string | null;
  expiresAt: Date | null;
}

export class TokensRepo {
  constructor(private readonly db: Executor) {}

  with(trx: Executor): TokensRepo {
    return new TokensRepo(trx);
  }

  async insert(token: NewToken): Promise<void> {
    await this.db
      .insertInto('api_tokens')
      .values({
        id: token.id,
        user_id: token.userId,
        token_hash: token.tokenHash,
        name: token.name,
        expires_at: token.expiresAt,
      })
      .execute();
  }

  /**
   * The owner of the live token with this digest, and the token's id: one query, one probe of the unique
   * token_hash index and one of the users primary key.
   */
  async findLiveOwner(tokenHash: Buffer): Promise<{ user: UserRow; tokenId: string } | undefined> {
    const row = await this.db
      .selectFrom('api_tokens')
      .innerJoin('users', 'users.id', 'api_tokens.user_id')
      .selectAll('users')
      .select('api_tokens.id as token_id')
      .where('api_tokens.token_hash', '=', tokenHash)
      .where((eb) =>
        eb.or([eb('api_tokens.expires_at', 'is', null), eb('api_tokens.expires_at', '>', sql<Date>`now()`)]),
      )
      .executeTakeFirst();
    if (!row) return undefined;
    const { token_id: tokenId, ...user } = row;
    return { user, tokenId };
  }

  async delete(id: string): Promise<void> {
    await this.db.deleteFrom('api_tokens').where('id', '=', id).execute();
  }
}
