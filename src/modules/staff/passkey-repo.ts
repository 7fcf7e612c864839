import type { Selectable } from 'kysely';
import type { StaffPasskeysTable } from '../../db/schema-staff.js';
import type { Executor } from '../../db/transaction.js';

export type StaffPasskeyRow = Selectable<StaffPasskeysTable>;

/** A consumed challenge: its digest, whom it was bound to and until when it could be answered. */
export interface StaffChallenge {
  challengeHash: Buffer;
  staffId: string | null;
  expiresAt: Date;
}

/** Expired challenges deleted per new one: more than are made per call, so the table cannot grow. */
const PRUNE_BATCH = 20;

/** The SQL of staff passkeys, their challenges and the members' WebAuthn handles (migration 0048). */
export class StaffPasskeyRepo {
  constructor(private readonly db: Executor) {}

  on(trx: Executor): StaffPasskeyRepo {
    return new StaffPasskeyRepo(trx);
  }

  async setHandle(staffId: string, handle: Buffer): Promise<void> {
    await this.db.updateTable('staff').set({ webauthn_handle: handle }).where('id', '=', staffId).execute();
  }

  async insert(row: {
    id: string;
    staffId: string;
    credentialId: Buffer;
    publicKey: Buffer;
    signCount: number;
    transports: string[];
  }): Promise<void> {
    await this.db
      .insertInto('staff_passkeys')
      .values({
        id: row.id,
        staff_id: row.staffId,
        credential_id: row.credentialId,
        public_key: row.publicKey,
        sign_count: row.signCount,
        transports: row.transports,
      })
      .execute();
  }

  async byCredentialId(credentialId: Buffer): Promise<StaffPasskeyRow | undefined> {
    return this.db
      .selectFrom('staff_passkeys')
      .selectAll()
      .where('credential_id', '=', credentialId)
      .executeTakeFirst();
  }

  /** Records a use if the counter is still the one checked: of two racing assertions, one counts. */
  async recordUse(id: string, previousCount: number, newCount: number, now: Date): Promise<boolean> {
    const result = await this.db
      .updateTable('staff_passkeys')
      .set({ sign_count: newCount, last_used_at: now })
      .where('id', '=', id)
      .where('sign_count', '=', previousCount)
      .executeTakeFirst();
    return result.numUpdatedRows === 1n;
  }

  /** Stores a challenge, and prunes a batch of those expired at `now` on the expires_at index. */
  async insertChallenge(challenge: {
    id: string;
    purpose: 'enrollment' | 'sign_in';
    staffId: string | null;
    challengeHash: Buffer;
    expiresAt: Date;
    now: Date;
  }): Promise<void> {
    const expired = this.db
      .selectFrom('staff_passkey_challenges')
      .select('id')
      .where('expires_at', '<', challenge.now)
      .orderBy('expires_at')
      .limit(PRUNE_BATCH);
    await this.db.deleteFrom('staff_passkey_challenges').where('id', 'in', expired).execute();
    await this.db
      .insertInto('staff_passkey_challenges')
      .values({
        id: challenge.id,
        purpose: challenge.purpose,
        staff_id: challenge.staffId,
        challenge_hash: challenge.challengeHash,
        expires_at: challenge.expiresAt,
      })
      .execute();
  }

  /** Uses up a challenge, expired or not: of concurrent answers to one challenge, one gets it back. */
  async consumeChallenge(id: string, purpose: 'enrollment' | 'sign_in'): Promise<StaffChallenge | undefined> {
    const row = await this.db
      .deleteFrom('staff_passkey_challenges')
      .where('id', '=', id)
      .where('purpose', '=', purpose)
      .returning(['challenge_hash', 'staff_id', 'expires_at'])
      .executeTakeFirst();
    return (
      row && {
        challengeHash: Buffer.from(row.challenge_hash),
        staffId: row.staff_id,
        expiresAt: row.expires_at,
      }
    );
  }
}
