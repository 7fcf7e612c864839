import { sql } from 'kysely';
import type { Executor } from '../../db/transaction.js';

/** The first key of the signing keys' advisory lock: apart from every other advisory lock. */
const SIGNING_KEYS_LOCK_CLASS = 727_040;

export interface SigningKeyRow {
  kid: string;
  alg: string;
  publicJwk: Record<string, string>;
  privateSealed: string;
  createdAt: Date;
  publishFrom: Date;
  signFrom: Date;
  retireAfter: Date | null;
}

export class SigningKeysRepo {
  constructor(private readonly db: Executor) {}

  with(trx: Executor): SigningKeysRepo {
    return new SigningKeysRepo(trx);
  }

  /**
   * Serialises the writers of the schedule (the first key, a rotation) for the transaction: two instances
   * starting at once make one first key, two rotations one after the other.
   */
  async lock(): Promise<void> {
    await sql`SELECT pg_advisory_xact_lock(${SIGNING_KEYS_LOCK_CLASS}, 0)`.execute(this.db);
  }

  async all(): Promise<SigningKeyRow[]> {
    const rows = await this.db.selectFrom('signing_keys').selectAll().orderBy('publish_from').execute();
    return rows.map((row) => ({
      kid: row.kid,
      alg: row.alg,
      publicJwk: row.public_jwk,
      privateSealed: row.private_sealed,
      createdAt: row.created_at,
      publishFrom: row.publish_from,
      signFrom: row.sign_from,
      retireAfter: row.retire_after,
    }));
  }

  async insert(key: Omit<SigningKeyRow, 'createdAt'>): Promise<void> {
    await this.db
      .insertInto('signing_keys')
      .values({
        kid: key.kid,
        alg: key.alg,
        public_jwk: JSON.stringify(key.publicJwk),
        private_sealed: key.privateSealed,
        publish_from: key.publishFrom,
        sign_from: key.signFrom,
        retire_after: key.retireAfter,
      })
      .execute();
  }

  async retire(kid: string, retireAfter: Date): Promise<void> {
    await this.db
      .updateTable('signing_keys')
      .set({ retire_after: retireAfter })
      .where('kid', '=', kid)
      .execute();
  }

  async delete(kids: string[]): Promise<void> {
    if (kids.length === 0) return;
    await this.db.deleteFrom('signing_keys').where('kid', 'in', kids).execute();
  }
}
