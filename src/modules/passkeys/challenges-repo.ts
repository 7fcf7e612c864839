import { sql } from 'kysely';
import type { WebAuthnChallengePurpose } from '../../db/schema.js';
import type { Executor } from '../../db/transaction.js';

export interface NewChallenge {
  id: string;
  purpose: WebAuthnChallengePurpose;
  userId: string | null;
  challengeHash: Buffer;
  expiresAt: Date;
}

/** A consumed challenge: what it was for, whom it was bound to, and whether it was still alive. */
export interface ConsumedChallenge {
  challengeHash: Buffer;
  userId: string | null;
  expired: boolean;
}

/** Expired challenges deleted per new one: more than are made per call, so the table cannot grow. */
const PRUNE_BATCH = 20;

/** The SQL of webauthn_challenges. */
export class WebAuthnChallengesRepo {
  constructor(private readonly db: Executor) {}

  with(trx: Executor): WebAuthnChallengesRepo {
    return new WebAuthnChallengesRepo(trx);
  }

  /**
   * Stores a challenge, and deletes a batch of expired ones on the expires_at index: every instance prunes
   * as it goes, so the table holds at most the challenges of the last few minutes (whose number the per-IP
   * limit of the public options endpoint bounds). SKIP LOCKED: two instances pruning never wait for each other.
   */
  async insert(challenge: NewChallenge): Promise<void> {
    await sql`
      DELETE FROM webauthn_challenges WHERE id IN (
        SELECT id FROM webauthn_challenges WHERE expires_at < now()
        ORDER BY expires_at LIMIT ${PRUNE_BATCH} FOR UPDATE SKIP LOCKED)`.execute(this.db);
    await this.db
      .insertInto('webauthn_challenges')
      .values({
        id: challenge.id,
        purpose: challenge.purpose,
        user_id: challenge.userId,
        challenge_hash: challenge.challengeHash,
        expires_at: challenge.expiresAt,
      })
      .execute();
  }

  /**
   * Uses up the challenge with this id and purpose, expired or not: of any number of concurrent requests
   * with one challenge, exactly one gets it back (DELETE … RETURNING); the others find nothing.
   */
  async consumeById(id: string, purpose: WebAuthnChallengePurpose): Promise<ConsumedChallenge | undefined> {
    const row = await this.db
      .deleteFrom('webauthn_challenges')
      .where('id', '=', id)
      .where('purpose', '=', purpose)
      .returning(['challenge_hash', 'user_id', sql<boolean>`expires_at <= now()`.as('expired')])
      .executeTakeFirst();
    return (
      row && { challengeHash: Buffer.from(row.challenge_hash), userId: row.user_id, expired: row.expired }
    );
  }

  /**
   * As consumeById, found by the challenge's SHA-256 (a registration names its challenge only inside the
   * response) and bound to `userId`: another user's challenge is never touched.
   */
  async consumeByHash(
    challengeHash: Buffer,
    purpose: WebAuthnChallengePurpose,
    userId: string,
  ): Promise<ConsumedChallenge | undefined> {
    const row = await this.db
      .deleteFrom('webauthn_challenges')
      .where('challenge_hash', '=', challengeHash)
      .where('purpose', '=', purpose)
      .where('user_id', '=', userId)
      .returning(['challenge_hash', 'user_id', sql<boolean>`expires_at <= now()`.as('expired')])
      .executeTakeFirst();
    return (
      row && { challengeHash: Buffer.from(row.challenge_hash), userId: row.user_id, expired: row.expired }
    );
  }
}
