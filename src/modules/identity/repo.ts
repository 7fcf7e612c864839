import { sql } from 'kysely';
import type { Executor } from '../../db/transaction.js';

/** How long an issued verification id may be used, and how recent PortOne's verification must be. */
export const VERIFICATION_WINDOW_MINUTES = 30;

/** An issued id as verify sees it; whether it is past its window is decided by the database's clock. */
export interface IssuedRequest {
  used: boolean;
  expired: boolean;
}

/** What the account's verification keeps (docs/identity.md): no CI, no phone number, no full name. */
export interface StoredVerification {
  ci_hash: Uint8Array;
  bound: boolean;
  birth_date: string;
  foreigner: boolean;
  masked_name: string;
  verified_at: Date;
}

/** A verification to store for a user. */
export interface VerificationRecord {
  userId: string;
  ciHash: Buffer;
  /** Claim the person for this account (IDENTITY_ONE_ACCOUNT_PER_PERSON). */
  bind: boolean;
  birthDate: string;
  foreigner: boolean;
  maskedName: string;
  verifiedAt: Date;
}

/** The unique index that keeps one person on one live account. */
export const CI_BINDING_CONSTRAINT = 'identity_verifications_ci_binding_key';

/**
 * The SQL of identity verification: the ids the service issues, the account's verification, and the two
 * columns of the users row a verification sets (`birth_date`, `identity_verified_at`), which live there so
 * that an authenticated request reads them with its token.
 */
export class IdentityRepo {
  constructor(private readonly db: Executor) {}

  with(trx: Executor): IdentityRepo {
    return new IdentityRepo(trx);
  }

  /**
   * Issues `id` to the user, and forgets their ids past the window: each start cleans up after the last, so
   * the table holds a few rows per user (start is rate-limited) without a sweep of its own.
   */
  async issue(id: string, userId: string): Promise<void> {
    await this.db
      .deleteFrom('identity_verification_requests')
      .where('user_id', '=', userId)
      .where(sql<boolean>`created_at < now() - make_interval(mins => ${VERIFICATION_WINDOW_MINUTES})`)
      .execute();
    await this.db.insertInto('identity_verification_requests').values({ id, user_id: userId }).execute();
  }

  /** The id if it was issued to this user (another user's id counts as one never issued). */
  async issued(id: string, userId: string): Promise<IssuedRequest | undefined> {
    const row = await this.db
      .selectFrom('identity_verification_requests')
      .select([
        sql<boolean>`used_at IS NOT NULL`.as('used'),
        sql<boolean>`created_at < now() - make_interval(mins => ${VERIFICATION_WINDOW_MINUTES})`.as(
          'expired',
        ),
      ])
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return row && { used: row.used, expired: row.expired };
  }

  /** Marks the id used; false when another request used it first (the row lock settles the race). */
  async claim(id: string, userId: string): Promise<boolean> {
    const row = await this.db
      .updateTable('identity_verification_requests')
      .set({ used_at: sql`now()` })
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .where('used_at', 'is', null)
      .returning('id')
      .executeTakeFirst();
    return row !== undefined;
  }

  /** The user's verification, if any; read FOR UPDATE inside verify's transaction. */
  find(userId: string, lock = false): Promise<StoredVerification | undefined> {
    const query = this.db
      .selectFrom('identity_verifications')
      .select([
        'ci_hash',
        sql<boolean>`ci_binding IS NOT NULL`.as('bound'),
        'birth_date',
        'foreigner',
        'masked_name',
        'verified_at',
      ])
      .where('user_id', '=', userId);
    return (lock ? query.forUpdate() : query).executeTakeFirst();
  }

  /** Whether another account holds the person (a live one: an erased account's row went with it). */
  async boundElsewhere(ciHash: Buffer, userId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('identity_verifications')
      .select('user_id')
      .where('ci_binding', '=', ciHash)
      .where('user_id', '<>', userId)
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * Stores the verification (replacing the account's last one) and sets the users row's birth date and
   * verification time: a verified birth date replaces a declared one. A person bound to another account in
   * the meantime violates CI_BINDING_CONSTRAINT.
   */
  async store(record: VerificationRecord): Promise<void> {
    const values = {
      ci_hash: record.ciHash,
      ci_binding: record.bind ? record.ciHash : null,
      birth_date: record.birthDate,
      foreigner: record.foreigner,
      masked_name: record.maskedName,
      verified_at: record.verifiedAt,
      updated_at: sql<Date>`now()`,
    };
    await this.db
      .insertInto('identity_verifications')
      .values({ user_id: record.userId, ...values })
      .onConflict((oc) => oc.column('user_id').doUpdateSet(values))
      .execute();
    await this.db
      .updateTable('users')
      .set({ birth_date: record.birthDate, identity_verified_at: record.verifiedAt })
      .where('id', '=', record.userId)
      .execute();
  }

  /**
   * Forgets the account's verification (the operator's release): the person may verify another account, and
   * this account is no longer verified. Its birth date stays, as a declared one. False when there was none.
   */
  async release(userId: string): Promise<boolean> {
    const row = await this.db
      .deleteFrom('identity_verifications')
      .where('user_id', '=', userId)
      .returning('user_id')
      .executeTakeFirst();
    await this.db.updateTable('users').set({ identity_verified_at: null }).where('id', '=', userId).execute();
    return row !== undefined;
  }
}
