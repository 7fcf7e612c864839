import { sql } from 'kysely';
import type { Executor } from '../../db/transaction.js';

export interface NewChallenge {
  id: string;
  userId: string;
  challengeHash: Buffer;
  expiresAt: Date;
  /** The first factor that proved right (`email`, a provider's name, `password_reset`). */
  method: string;
  /** The first step presented a token of this account. */
  knownDevice: boolean;
  /** What a right code leads to: a sign-in, or taking the account's scheduled deletion back. */
  purpose: 'sign_in' | 'deletion_cancel';
}

/** A live challenge, as the sign-in's second step reads it. */
export interface LiveChallenge {
  id: string;
  user_id: string;
  email: string;
  username: string;
  email_verified: boolean;
  method: string;
  known_device: boolean;
  purpose: string;
}

/** The SQL of second_factor_challenges: sign-ins waiting for their second factor. */
export class ChallengesRepo {
  constructor(private readonly db: Executor) {}

  with(trx: Executor): ChallengesRepo {
    return new ChallengesRepo(trx);
  }

  /** Stores a challenge; the user's expired ones go at the same time (on the user_id index). */
  async insert(challenge: NewChallenge): Promise<void> {
    await this.db
      .deleteFrom('second_factor_challenges')
      .where('user_id', '=', challenge.userId)
      .where('expires_at', '<=', sql<Date>`now()`)
      .execute();
    await this.db
      .insertInto('second_factor_challenges')
      .values({
        id: challenge.id,
        user_id: challenge.userId,
        challenge_hash: challenge.challengeHash,
        expires_at: challenge.expiresAt,
        method: challenge.method,
        known_device: challenge.knownDevice,
        purpose: challenge.purpose,
      })
      .execute();
  }

  /**
   * The challenge with this hash while it lives (unexpired, fewer than `maxFailures` wrong codes), with its
   * user's email and name and what its first step proved. `lock`: row-locked for the rest of the
   * transaction, so that concurrent uses of one challenge queue here and each sees what the one before it
   * did (used it up, or counted a failure).
   */
  findLive(hash: Buffer, maxFailures: number, lock = false): Promise<LiveChallenge | undefined> {
    const query = this.db
      .selectFrom('second_factor_challenges as c')
      .innerJoin('users', 'users.id', 'c.user_id')
      .select([
        'c.id',
        'c.user_id',
        'users.email',
        'users.username',
        'users.email_verified',
        'c.method',
        'c.known_device',
        'c.purpose',
      ])
      .where('c.challenge_hash', '=', hash)
      .where('c.expires_at', '>', sql<Date>`now()`)
      .where('c.failures', '<', maxFailures);
    return (lock ? query.forUpdate('c') : query).executeTakeFirst();
  }

  async countFailure(id: string): Promise<void> {
    await this.db
      .updateTable('second_factor_challenges')
      .set((eb) => ({ failures: eb('failures', '+', 1) }))
      .where('id', '=', id)
      .execute();
  }

  async delete(id: string): Promise<void> {
    await this.db.deleteFrom('second_factor_challenges').where('id', '=', id).execute();
  }

  /** Every challenge of the user, whatever it was for. */
  async deleteAllOf(userId: string): Promise<void> {
    await this.db.deleteFrom('second_factor_challenges').where('user_id', '=', userId).execute();
  }
}
