import type { Executor } from '../../db/transaction.js';

/** A live staff session with its member, as one read finds it. */
export interface StaffSessionRow {
  id: string;
  staff_id: string;
  last_seen_at: Date;
  expires_at: Date;
  email: string;
  role: string;
  disabled_at: Date | null;
}

/** The staff sessions, shared by every instance through the database. */
export class StaffSessionRepo {
  constructor(private readonly db: Executor) {}

  on(trx: Executor): StaffSessionRepo {
    return new StaffSessionRepo(trx);
  }

  async insert(row: {
    id: string;
    staffId: string;
    tokenHash: Buffer;
    clientAddress: string;
    now: Date;
    expiresAt: Date;
  }): Promise<void> {
    await this.db
      .insertInto('staff_sessions')
      .values({
        id: row.id,
        staff_id: row.staffId,
        token_hash: row.tokenHash,
        client_address: row.clientAddress,
        created_at: row.now,
        last_seen_at: row.now,
        expires_at: row.expiresAt,
      })
      .execute();
  }

  async byTokenHash(hash: Buffer): Promise<StaffSessionRow | undefined> {
    return this.db
      .selectFrom('staff_sessions')
      .innerJoin('staff', 'staff.id', 'staff_sessions.staff_id')
      .select([
        'staff_sessions.id',
        'staff_sessions.staff_id',
        'staff_sessions.last_seen_at',
        'staff_sessions.expires_at',
        'staff.email',
        'staff.role',
        'staff.disabled_at',
      ])
      .where('staff_sessions.token_hash', '=', hash)
      .executeTakeFirst();
  }

  async touch(id: string, now: Date): Promise<void> {
    await this.db.updateTable('staff_sessions').set({ last_seen_at: now }).where('id', '=', id).execute();
  }

  async remove(id: string): Promise<void> {
    await this.db.deleteFrom('staff_sessions').where('id', '=', id).execute();
  }

  async removeAllOf(staffId: string): Promise<void> {
    await this.db.deleteFrom('staff_sessions').where('staff_id', '=', staffId).execute();
  }

  /** Sessions past their end; a sign-in sweeps them, so the table holds only what may still be used. */
  async removeEnded(now: Date, idleSince: Date): Promise<void> {
    await this.db
      .deleteFrom('staff_sessions')
      .where((eb) => eb.or([eb('expires_at', '<=', now), eb('last_seen_at', '<=', idleSince)]))
      .execute();
  }
}
