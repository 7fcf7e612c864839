import { sql } from 'kysely';
import type { Executor } from '../../db/transaction.js';

/** A user's authenticator as the second-factor use case reads it. */
export interface TotpCredential {
  /** Sealed (lib/secret-box.ts). */
  secret: string;
  enabled_at: Date | null;
  created_at: Date;
  /** Wrong codes in a row since the last right one (sign-in and settings alike). */
  failed_attempts: number;
  /** When the last wrong code came. */
  last_failed_at: Date | null;
}

/** What `removeAll` removed: an authenticator that was on, or a setup still waiting for its first code. */
export type RemovedAuthenticator = 'enabled' | 'pending';

/** The SQL of totp_credentials and recovery_codes (every query on the user's primary key). */
export class SecondFactorRepo {
  constructor(private readonly db: Executor) {}

  with(trx: Executor): SecondFactorRepo {
    return new SecondFactorRepo(trx);
  }

  /**
   * `lock`: row-locked for the rest of the transaction, so that concurrent codes for one account queue here
   * and each sees the wrong codes counted before it.
   */
  findTotp(userId: string, lock = false): Promise<TotpCredential | undefined> {
    const query = this.db
      .selectFrom('totp_credentials')
      .select(['secret', 'enabled_at', 'created_at', 'failed_attempts', 'last_failed_at'])
      .where('user_id', '=', userId);
    return (lock ? query.forUpdate() : query).executeTakeFirst();
  }

  /** One more wrong code in a row, now. */
  async countFailure(userId: string): Promise<void> {
    await this.db
      .updateTable('totp_credentials')
      .set((eb) => ({ failed_attempts: eb('failed_attempts', '+', 1), last_failed_at: sql<Date>`now()` }))
      .where('user_id', '=', userId)
      .execute();
  }

  /** The run of wrong codes is over (a right code, or a session made with two factors); no write if none. */
  async clearFailures(userId: string): Promise<void> {
    await this.db
      .updateTable('totp_credentials')
      .set({ failed_attempts: 0, last_failed_at: null })
      .where('user_id', '=', userId)
      .where('failed_attempts', '>', 0)
      .execute();
  }

  /**
   * Stores a pending setup, replacing a pending one; false (nothing written) when the user's authenticator is
   * enabled. One statement, so a setup racing an enable can never overwrite an enabled secret.
   */
  async savePending(userId: string, secret: string): Promise<boolean> {
    const row = await this.db
      .insertInto('totp_credentials')
      .values({ user_id: userId, secret })
      .onConflict((conflict) =>
        conflict
          .column('user_id')
          .doUpdateSet({ secret, last_step: null, created_at: sql<Date>`now()` })
          .where('totp_credentials.enabled_at', 'is', null),
      )
      .returning('user_id')
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * Enables the pending setup whose sealed secret is `secret` (the one the code was checked against: not one a
   * parallel setup put in its place), recording the code's step. False when there is no such pending setup.
   */
  async enable(userId: string, secret: string, step: number): Promise<boolean> {
    const row = await this.db
      .updateTable('totp_credentials')
      .set({ enabled_at: sql<Date>`now()`, last_step: step })
      .where('user_id', '=', userId)
      .where('secret', '=', secret)
      .where('enabled_at', 'is', null)
      .returning('user_id')
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * Accepts a code of time step `step` for the enabled authenticator: atomically, and only when the step is
   * later than the last accepted one (a code is used once; of two requests with one code, one wins).
   */
  async acceptStep(userId: string, step: number): Promise<boolean> {
    const row = await this.db
      .updateTable('totp_credentials')
      .set({ last_step: step })
      .where('user_id', '=', userId)
      .where('enabled_at', 'is not', null)
      .where((eb) => eb.or([eb('last_step', 'is', null), eb('last_step', '<', sql<string>`${step}`)]))
      .returning('user_id')
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * Removes the authenticator, every recovery code and every pending challenge. Says what the authenticator
   * was: `enabled` (the second factor was on), `pending` (a setup that never got its first code), or
   * undefined when there was none.
   */
  async removeAll(userId: string): Promise<RemovedAuthenticator | undefined> {
    await this.db.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
    await this.db.deleteFrom('second_factor_challenges').where('user_id', '=', userId).execute();
    const removed = await this.db
      .deleteFrom('totp_credentials')
      .where('user_id', '=', userId)
      .returning('enabled_at')
      .executeTakeFirst();
    if (removed === undefined) return undefined;
    return removed.enabled_at === null ? 'pending' : 'enabled';
  }

  /** Replaces every recovery code of the user with these (SHA-256 digests): the old ones stop working. */
  async replaceRecoveryCodes(userId: string, hashes: Buffer[]): Promise<void> {
    await this.db.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
    await this.db
      .insertInto('recovery_codes')
      .values(hashes.map((codeHash) => ({ user_id: userId, code_hash: codeHash })))
      .execute();
  }

  /** Uses up a recovery code: deleted, so of two requests with one code exactly one gets true. */
  async consumeRecoveryCode(userId: string, hash: Buffer): Promise<boolean> {
    const row = await this.db
      .deleteFrom('recovery_codes')
      .where('user_id', '=', userId)
      .where('code_hash', '=', hash)
      .returning('user_id')
      .executeTakeFirst();
    return row !== undefined;
  }

  async recoveryCodesLeft(userId: string): Promise<number> {
    const row = await this.db
      .selectFrom('recovery_codes')
      .select((eb) => eb.fn.countAll<string | number>().as('left'))
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    return Number(row.left);
  }

  /** Whether the user has a second factor on (for a sign-in that did not read it with the account). */
  async isEnabled(userId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('totp_credentials')
      .select('user_id')
      .where('user_id', '=', userId)
      .where('enabled_at', 'is not', null)
      .executeTakeFirst();
    return row !== undefined;
  }
}
