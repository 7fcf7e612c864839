import { type Executor, writeTransaction } from '../../db/transaction.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../../errors.js';
import { newId } from '../../lib/ids.js';
import { iso } from '../../lib/time.js';
import { hashApiToken, newApiToken } from '../../lib/tokens.js';
import { isStaffRole, type StaffRole, staffRoles } from './permissions.js';
import type { RightsChange, StaffRepo, StaffRow } from './repo.js';
import type { StaffSessionRepo } from './session-repo.js';

/** An enrollment link works for 24 hours. */
export const ENROLLMENT_TTL_MS = 24 * 3_600_000;

/** A staff member as the CLI and the admin API show them: never a hash, a secret or a token. */
export interface StaffView {
  id: string;
  email: string;
  role: StaffRole;
  /** `invited` until enrolled; `locked` after five wrong tries in a row, until the lockout ends. */
  state: 'invited' | 'active' | 'disabled' | 'locked';
  enrolled_at: string | null;
  disabled_at: string | null;
  locked_until: string | null;
  created_at: string;
}

/** One recorded change of a member's rights. */
export interface RightsChangeView {
  id: string;
  actor: string;
  action: string;
  role_before: string | null;
  role_after: string | null;
  created_at: string;
}

/** What `staff add` answers: the link is shown this once (only its digest is kept). */
export interface AddedStaff {
  id: string;
  email: string;
  role: StaffRole;
  enrollment_url: string;
}

export interface StaffServiceDeps {
  db: Executor;
  repo: StaffRepo;
  sessions: StaffSessionRepo;
  /** PUBLIC_URL: the enrollment link's origin. */
  publicUrl: string;
  now?: () => number;
}

/** A role the table knows (permissions.ts), or a 422 on `role`. */
export function staffRole(value: string): StaffRole {
  if (!isStaffRole(value))
    throw new ValidationError({ role: [{ rule: 'in', params: { values: staffRoles.join(', ') } }] });
  return value;
}

/** An address as staff are keyed by: trimmed, lower-cased; a 422 on `email` when it is none. */
function staffEmail(value: string): string {
  const email = value.trim().toLowerCase();
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) || email.length > 255)
    throw new ValidationError({ email: [{ rule: 'email' }] });
  return email;
}

export function staffView(row: StaffRow, now: number): StaffView {
  const locked = row.locked_until !== null && row.locked_until.getTime() > now;
  let state: StaffView['state'] = row.enrolled_at === null ? 'invited' : 'active';
  if (locked) state = 'locked';
  if (row.disabled_at !== null) state = 'disabled';
  return {
    id: row.id,
    email: row.email,
    role: staffRole(row.role),
    state,
    enrolled_at: row.enrolled_at && iso(row.enrolled_at),
    disabled_at: row.disabled_at && iso(row.disabled_at),
    locked_until: locked && row.locked_until ? iso(row.locked_until) : null,
    created_at: iso(row.created_at),
  };
}

/**
 * Staff accounts and their rights: add (with a one-time enrollment link), change the role,
 * disable, enable, remove, unlock. Every change of rights is written in the same transaction as a row of
 * `staff_rights_changes`: who (`actor`), when, the role before and after.
 */
export class StaffService {
  private readonly now: () => number;

  constructor(private readonly deps: StaffServiceDeps) {
    this.now = deps.now ?? Date.now;
  }

  async add(emailText: string, roleText: string, actor: string): Promise<AddedStaff> {
    const email = staffEmail(emailText);
    const role = staffRole(roleText);
    const token = newApiToken();
    const id = newId();
    await writeTransaction(
      this.deps.db,
      async (trx) => {
        const repo = this.deps.repo.on(trx);
        if (await repo.byEmail(email)) throw ValidationError.taken('email');
        await repo.insert({
          id,
          email,
          role,
          enrollmentTokenHash: hashApiToken(token),
          enrollmentExpiresAt: new Date(this.now() + ENROLLMENT_TTL_MS),
        });
        await this.record(repo, {
          staffId: id,
          staffEmail: email,
          actor,
          action: 'grant',
          roleBefore: null,
          roleAfter: role,
        });
      },
      (constraint) => (constraint === 'staff_email_key' ? 'email' : undefined),
    );
    const enrollment_url = `${this.deps.publicUrl}/console/enroll?token=${token}`;
    return { id, email, role, enrollment_url };
  }

  async list(): Promise<StaffView[]> {
    const now = this.now();
    return (await this.deps.repo.all()).map((row) => staffView(row, now));
  }

  async get(reference: string): Promise<StaffView> {
    return staffView(await this.find(this.deps.repo, reference), this.now());
  }

  /** A new role; its sessions end, so the next sign-in carries the new rights (no stale permissions). */
  async setRole(reference: string, roleText: string, actor: string): Promise<StaffView> {
    const role = staffRole(roleText);
    return this.change(
      reference,
      async (repo, row, sessions) => {
        if (row.role === role) return;
        await repo.update(row.id, { role });
        await sessions.removeAllOf(row.id);
        return { action: 'change', roleBefore: staffRole(row.role), roleAfter: role };
      },
      actor,
    );
  }

  async disable(reference: string, actor: string): Promise<StaffView> {
    return this.change(
      reference,
      async (repo, row, sessions) => {
        if (row.disabled_at !== null) return;
        await repo.update(row.id, { disabled_at: new Date(this.now()) });
        await sessions.removeAllOf(row.id);
        return { action: 'disable', roleBefore: staffRole(row.role), roleAfter: null };
      },
      actor,
    );
  }

  async enable(reference: string, actor: string): Promise<StaffView> {
    return this.change(
      reference,
      async (repo, row) => {
        if (row.disabled_at === null) return;
        await repo.update(row.id, { disabled_at: null });
        return { action: 'enable', roleBefore: null, roleAfter: staffRole(row.role) };
      },
      actor,
    );
  }

  async unlock(reference: string, actor: string): Promise<StaffView> {
    return this.change(
      reference,
      async (repo, row) => {
        if (row.locked_until === null && row.failed_attempts === 0) return;
        await repo.update(row.id, { locked_until: null, failed_attempts: 0 });
        return { action: 'unlock', roleBefore: staffRole(row.role), roleAfter: staffRole(row.role) };
      },
      actor,
    );
  }

  /** Removes the member and their sessions; the record of their rights stays (three years). */
  async remove(reference: string, actor: string): Promise<StaffView> {
    return this.change(
      reference,
      async (repo, row) => {
        await repo.remove(row.id);
        return { action: 'remove', roleBefore: staffRole(row.role), roleAfter: null };
      },
      actor,
    );
  }

  /** The recorded changes of one member's rights, oldest first (a removed member's are kept, not shown here). */
  async history(reference: string): Promise<RightsChangeView[]> {
    const row = await this.find(this.deps.repo, reference);
    return (await this.deps.repo.changesOf(row.id)).map((change) => ({
      id: change.id,
      actor: change.actor,
      action: change.action,
      role_before: change.role_before,
      role_after: change.role_after,
      created_at: iso(change.created_at),
    }));
  }

  /** One change of a member's rights and its record, in one transaction on the member's locked row. */
  private async change(
    reference: string,
    work: (
      repo: StaffRepo,
      row: StaffRow,
      sessions: StaffSessionRepo,
    ) => Promise<Pick<RightsChange, 'action' | 'roleBefore' | 'roleAfter'> | undefined>,
    actor: string,
  ): Promise<StaffView> {
    return writeTransaction(this.deps.db, async (trx) => {
      const repo = this.deps.repo.on(trx);
      const found = await this.find(repo, reference);
      // Nobody changes their own rights: an admin cannot lock the last admin out, nor raise themselves.
      if (actor === `staff:${found.id}`) throw new ForbiddenError();
      const row = (await repo.lockedById(found.id)) ?? found;
      const change = await work(repo, row, this.deps.sessions.on(trx));
      if (change) await this.record(repo, { staffId: row.id, staffEmail: row.email, actor, ...change });
      const after = await repo.byId(row.id);
      return staffView(after ?? row, this.now());
    });
  }

  private async record(repo: StaffRepo, change: RightsChange): Promise<void> {
    await repo.recordChange(newId(), change);
  }

  /** A member by id or email; a NotFoundError naming the reference otherwise. */
  private async find(repo: StaffRepo, reference: string): Promise<StaffRow> {
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(reference);
    const row = uuid ? await repo.byId(reference) : await repo.byEmail(reference.trim().toLowerCase());
    if (!row) throw new NotFoundError(`staff member "${reference}"`);
    return row;
  }
}
