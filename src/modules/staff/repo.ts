import type { Selectable } from 'kysely';
import type { StaffTable } from '../../db/schema-staff.js';
import type { Executor } from '../../db/transaction.js';
import type { StaffRole } from './permissions.js';

export type StaffRow = Selectable<StaffTable>;

/** What a rights change records (migration 0044): who changed whose rights, and the role before and after. */
export interface RightsChange {
  staffId: string;
  staffEmail: string;
  actor: string;
  action: 'grant' | 'change' | 'disable' | 'enable' | 'remove' | 'unlock';
  roleBefore: StaffRole | null;
  roleAfter: StaffRole | null;
}

export interface RightsChangeRow {
  id: string;
  staff_id: string;
  staff_email: string;
  actor: string;
  action: string;
  role_before: string | null;
  role_after: string | null;
  created_at: Date;
}

/** The staff table and the record of their rights; every statement on the executor it is given. */
export class StaffRepo {
  constructor(private readonly db: Executor) {}

  /** The same repo on a transaction. */
  on(trx: Executor): StaffRepo {
    return new StaffRepo(trx);
  }

  async insert(row: {
    id: string;
    email: string;
    role: StaffRole;
    enrollmentTokenHash: Buffer;
    enrollmentExpiresAt: Date;
  }): Promise<void> {
    await this.db
      .insertInto('staff')
      .values({
        id: row.id,
        email: row.email,
        role: row.role,
        enrollment_token_hash: row.enrollmentTokenHash,
        enrollment_expires_at: row.enrollmentExpiresAt,
      })
      .execute();
  }

  async byId(id: string): Promise<StaffRow | undefined> {
    return this.db.selectFrom('staff').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async byEmail(email: string): Promise<StaffRow | undefined> {
    return this.db.selectFrom('staff').selectAll().where('email', '=', email).executeTakeFirst();
  }

  /** The row, locked until the transaction ends (a sign-in's counter, a change of rights). */
  async lockedById(id: string): Promise<StaffRow | undefined> {
    return this.db.selectFrom('staff').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
  }

  async byEnrollmentToken(hash: Buffer): Promise<StaffRow | undefined> {
    return this.db
      .selectFrom('staff')
      .selectAll()
      .where('enrollment_token_hash', '=', hash)
      .forUpdate()
      .executeTakeFirst();
  }

  async all(): Promise<StaffRow[]> {
    return this.db.selectFrom('staff').selectAll().orderBy('email').execute();
  }

  async update(
    id: string,
    values: Partial<{
      role: StaffRole;
      password_hash: string;
      totp_sealed: string | null;
      second_factor: 'totp' | 'passkey';
      totp_last_step: number | null;
      enrolled_at: Date;
      disabled_at: Date | null;
      failed_attempts: number;
      locked_until: Date | null;
    }>,
  ): Promise<void> {
    await this.db.updateTable('staff').set(values).where('id', '=', id).execute();
  }

  async remove(id: string): Promise<void> {
    await this.db.deleteFrom('staff').where('id', '=', id).execute();
  }

  async recordChange(id: string, change: RightsChange): Promise<void> {
    await this.db
      .insertInto('staff_rights_changes')
      .values({
        id,
        staff_id: change.staffId,
        staff_email: change.staffEmail,
        actor: change.actor,
        action: change.action,
        role_before: change.roleBefore,
        role_after: change.roleAfter,
      })
      .execute();
  }

  async changesOf(staffId: string): Promise<RightsChangeRow[]> {
    return this.db
      .selectFrom('staff_rights_changes')
      .selectAll()
      .where('staff_id', '=', staffId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  }
}
