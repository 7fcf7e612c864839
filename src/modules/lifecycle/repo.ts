import { sql } from 'kysely';
import { Precompiled } from '../../db/precompiled.js';
import type { OneTimeTokenPurpose, UserRow } from '../../db/schema.js';
import type { Executor, TableInserter } from '../../db/transaction.js';

export interface NewOneTimeToken {
  id: string;
  userId: string;
  purpose: OneTimeTokenPurpose;
  tokenHash: Buffer;
  email: string;
  expiresAt: Date;
}

/** The INSERT of a one-time token; also part of an email sign-up's one write. */
export function insertOneTimeTokenQuery(db: TableInserter, token: NewOneTimeToken) {
  return db.insertInto('one_time_tokens').values({
    id: token.id,
    user_id: token.userId,
    purpose: token.purpose,
    token_hash: token.tokenHash,
    email: token.email,
    expires_at: token.expiresAt,
  });
}

/** A one-time token: every email sign-up writes one, so the statement is compiled (and prepared) once. */
const INSERT_TOKEN = Precompiled.named((db: Executor, token: NewOneTimeToken) =>
  insertOneTimeTokenQuery(db, token),
);

/** The SQL of one_time_tokens (email verification and password reset). */
export class OneTimeTokensRepo {
  constructor(private readonly db: Executor) {}

  with(trx: Executor): OneTimeTokensRepo {
    return new OneTimeTokensRepo(trx);
  }

  /** Replaces the user's token of this purpose: issuing a new one invalidates the one mailed before. */
  async replace(token: NewOneTimeToken): Promise<void> {
    await this.deleteFor(token.userId, token.purpose);
    await this.insert(token);
  }

  /** A token for a user who cannot have one of this purpose yet (an account being created). */
  async insert(token: NewOneTimeToken): Promise<void> {
    await INSERT_TOKEN.execute(this.db, token);
  }

  /**
   * The user's one-time links as the data export shows them: what each was for, the address it went to and
   * its dates, never its hash (on the (user_id, purpose) index).
   */
  linksOf(userId: string): Promise<
    {
      purpose: OneTimeTokenPurpose;
      email: string;
      created_at: Date;
      expires_at: Date;
      used_at: Date | null;
    }[]
  > {
    return this.db
      .selectFrom('one_time_tokens')
      .select(['purpose', 'email', 'created_at', 'expires_at', 'used_at'])
      .where('user_id', '=', userId)
      .orderBy('created_at')
      .execute();
  }

  /** Every token of the user of this purpose (on the (user_id, purpose) index). */
  async deleteFor(userId: string, purpose: OneTimeTokenPurpose): Promise<void> {
    await this.db
      .deleteFrom('one_time_tokens')
      .where('user_id', '=', userId)
      .where('purpose', '=', purpose)
      .execute();
  }

  /**
   * The user a token would open, without using it up: unused, unexpired, and mailed to the address the user
   * still has. Lets a request with a dead token fail before any slow work (hashing a new password).
   */
  async findUsable(tokenHash: Buffer, purpose: OneTimeTokenPurpose): Promise<UserRow | undefined> {
    return this.db
      .selectFrom('one_time_tokens')
      .innerJoin('users', 'users.id', 'one_time_tokens.user_id')
      .selectAll('users')
      .where('one_time_tokens.token_hash', '=', tokenHash)
      .where('one_time_tokens.purpose', '=', purpose)
      .where('one_time_tokens.used_at', 'is', null)
      .where('one_time_tokens.expires_at', '>', sql<Date>`now()`)
      .where(sql`lower(users.email)`, '=', sql`lower(one_time_tokens.email)`)
      .executeTakeFirst();
  }

  /**
   * Uses the token up, atomically: of any number of concurrent requests with one token, exactly one gets
   * the user's id back (the row lock makes the others re-check `used_at IS NULL` after the winner commits,
   * and find it set). Only a token mailed to the address the user still has counts: a link sent to an old
   * address neither verifies a new one nor resets the password.
   */
  async consume(tokenHash: Buffer, purpose: OneTimeTokenPurpose): Promise<string | undefined> {
    const result = await sql<{ user_id: string }>`
      UPDATE one_time_tokens AS t SET used_at = now()
      FROM users AS u
      WHERE t.token_hash = ${tokenHash} AND t.purpose = ${purpose}
        AND t.used_at IS NULL AND t.expires_at > now()
        AND u.id = t.user_id AND lower(u.email) = lower(t.email)
      RETURNING t.user_id`.execute(this.db);
    return result.rows[0]?.user_id;
  }
}
