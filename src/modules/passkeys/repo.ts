import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { PasskeyRow } from '../../db/schema.js';
import type { Executor } from '../../db/transaction.js';

/** The unique index on credential_id: one credential belongs to one account. */
export const CREDENTIAL_ID_INDEX = 'passkeys_credential_id_key';

export interface NewPasskey {
  id: string;
  userId: string;
  credentialId: Buffer;
  publicKey: Buffer;
  signCount: number;
  transports: string[];
  deviceType: 'singleDevice' | 'multiDevice';
  backedUp: boolean;
  name: string;
}

/** A passkey as its owner sees it in the list. */
export interface PasskeySummary {
  id: string;
  name: string;
  created_at: Date;
  last_used_at: Date | null;
}

const SUMMARY = ['id', 'name', 'created_at', 'last_used_at'] as const;

/** The signature counter as a number, whichever way the driver hands a bigint back. */
export function signCountOf(row: Pick<PasskeyRow, 'sign_count'>): number {
  return Number(row.sign_count);
}

/** The SQL of passkeys and of the users' WebAuthn handles. */
export class PasskeysRepo {
  constructor(private readonly db: Executor) {}

  with(trx: Executor): PasskeysRepo {
    return new PasskeysRepo(trx);
  }

  /**
   * The user's WebAuthn user handle, made on first use: 32 random bytes. Concurrent first uses agree on one
   * (the insert that loses to the primary key does nothing, and both read the winner's).
   */
  async userHandle(userId: string): Promise<Buffer> {
    await this.db
      .insertInto('webauthn_user_handles')
      .values({ user_id: userId, handle: randomBytes(32) })
      .onConflict((conflict) => conflict.column('user_id').doNothing())
      .execute();
    const row = await this.db
      .selectFrom('webauthn_user_handles')
      .select('handle')
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    return Buffer.from(row.handle);
  }

  /** The user's WebAuthn user handle, if one was made (the primary key). */
  async handleOf(userId: string): Promise<Buffer | undefined> {
    const row = await this.db
      .selectFrom('webauthn_user_handles')
      .select('handle')
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return row && Buffer.from(row.handle);
  }

  /** The user's passkeys, oldest first (on the (user_id, id) index; ids are time-ordered). */
  listFor(userId: string): Promise<PasskeyRow[]> {
    return this.db.selectFrom('passkeys').selectAll().where('user_id', '=', userId).orderBy('id').execute();
  }

  /** The user's passkeys as the list shows them. */
  summariesFor(userId: string): Promise<PasskeySummary[]> {
    return this.db
      .selectFrom('passkeys')
      .select(SUMMARY)
      .where('user_id', '=', userId)
      .orderBy('id')
      .execute();
  }

  /** The passkey with this credential id (the unique index), whoever it belongs to. */
  findByCredentialId(credentialId: Buffer): Promise<PasskeyRow | undefined> {
    return this.db
      .selectFrom('passkeys')
      .selectAll()
      .where('credential_id', '=', credentialId)
      .executeTakeFirst();
  }

  async insert(passkey: NewPasskey): Promise<PasskeySummary> {
    return this.db
      .insertInto('passkeys')
      .values({
        id: passkey.id,
        user_id: passkey.userId,
        credential_id: passkey.credentialId,
        public_key: passkey.publicKey,
        sign_count: passkey.signCount,
        transports: passkey.transports,
        device_type: passkey.deviceType,
        backed_up: passkey.backedUp,
        name: passkey.name,
      })
      .returning(SUMMARY)
      .executeTakeFirstOrThrow();
  }

  /** Renames one of the user's passkeys; undefined when the user has no passkey with this id. */
  rename(userId: string, id: string, name: string): Promise<PasskeySummary | undefined> {
    return this.db
      .updateTable('passkeys')
      .set({ name })
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .returning(SUMMARY)
      .executeTakeFirst();
  }

  /**
   * Records a use whose signature counter moved from `previousCount` to `newCount`, in one statement that
   * only one of two concurrent uses of the same assertion can win: the row must still hold the counter the
   * assertion was checked against (a counter-less authenticator, which always says 0, is only ever checked
   * against 0). False when another use got there first.
   */
  async recordUse(id: string, previousCount: number, newCount: number, backedUp: boolean): Promise<boolean> {
    const result = await this.db
      .updateTable('passkeys')
      .set({ sign_count: newCount, backed_up: backedUp, last_used_at: sql<Date>`now()` })
      .where('id', '=', id)
      .where('sign_count', '=', previousCount)
      .executeTakeFirst();
    return result.numUpdatedRows === 1n;
  }

  /** Deletes one of the user's passkeys; false when the user has no passkey with this id. */
  async delete(userId: string, id: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('passkeys')
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return result.numDeletedRows === 1n;
  }

  /** How many passkeys the user has (on the (user_id, id) index). */
  async countFor(userId: string): Promise<number> {
    const row = await this.db
      .selectFrom('passkeys')
      .select((eb) => eb.fn.countAll<string | number | bigint>().as('count'))
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }
}
