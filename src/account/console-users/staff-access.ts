import { ForbiddenError, ValidationError } from '../../errors.js';
import { type Permission, roleCan, type StaffRole } from '../../modules/staff/permissions.js';
import { string } from '../../validation/field-kinds.js';
import { rules } from '../../validation/rule-list.js';

/** The staff member acting, as the admin app's session names them, and where the request came from. */
export interface StaffActor {
  id: string;
  role: StaffRole;
  clientAddress: string;
}

export type AccessOutcome = 'ok' | 'refused' | 'failed';

/** One access record (접속기록): who, from where, whose data, what, why, and how it ended. */
export interface AccessEntry {
  actor: { kind: 'staff'; id: string };
  clientAddress: string;
  subjectId: string | null;
  action: string;
  reason?: string;
  outcome: AccessOutcome;
  detail?: Record<string, unknown>;
}

/** Where the records go (the access records service implements it; tests pass a recording fake). */
export interface AccessRecorder {
  record(entry: AccessEntry): Promise<void>;
}

/** A reason as staff give it: required where the action asks for one, and short enough to read in a list. */
export const REASON_MAX = 500;
export const reasonField = string()
  .max(REASON_MAX)
  .describe('Why: kept in the access record with the action (at most 500 characters).');
export const reasonRules = rules({ reason: reasonField.required() });

/** What one guarded step is: the right it needs, the record's action and subject, and its reason. */
export interface Access {
  permission: Permission;
  action: string;
  subjectId: string | null;
  /** Required (a 422 on `reason` without one) for every action but a plain view. */
  reason?: string | undefined;
  reasonRequired: boolean;
}

/** The record's detail for what the work returned (a row count, the field shown), if any. */
export type DetailOf<T> = (result: T) => Record<string, unknown> | undefined;

/**
 * Runs a console step behind its permission and writes exactly one access record for it: `refused` when the
 * role lacks the right (then ForbiddenError), `failed` when the work threw, `ok` with the detail otherwise.
 * A request refused by validation (no reason, a bad field) touched nobody's data and is not recorded.
 */
export class StaffGate {
  constructor(private readonly recorder: AccessRecorder) {}

  async run<T>(actor: StaffActor, access: Access, work: () => Promise<T>, detail?: DetailOf<T>): Promise<T> {
    const reason = access.reason?.trim() === '' ? undefined : access.reason?.trim();
    const entry = (outcome: AccessOutcome, extra?: Record<string, unknown>): AccessEntry => ({
      actor: { kind: 'staff', id: actor.id },
      clientAddress: actor.clientAddress,
      subjectId: access.subjectId,
      action: access.action,
      ...(reason === undefined ? {} : { reason }),
      outcome,
      ...(extra === undefined ? {} : { detail: extra }),
    });
    if (!roleCan(actor.role, access.permission)) {
      await this.recorder.record(entry('refused', { permission: access.permission }));
      throw new ForbiddenError();
    }
    if (access.reasonRequired) requireReason(access.reason);
    let result: T;
    try {
      result = await work();
    } catch (error) {
      // A 422 from the work (a taken username) changed nothing, but it was an attempt on the user's data.
      await this.recorder.record(entry('failed', { error: errorCode(error) }));
      throw error;
    }
    await this.recorder.record(entry('ok', detail?.(result)));
    return result;
  }
}

/** A reason that is there, not blank, and at most REASON_MAX characters; else the 422 naming `reason`. */
export function requireReason(reason: string | undefined): string {
  const trimmed = reason?.trim() ?? '';
  if (trimmed === '') throw new ValidationError({ reason: [{ rule: 'required' }] });
  if (Array.from(trimmed).length > REASON_MAX) {
    throw new ValidationError({ reason: [{ rule: 'max.string', params: { max: REASON_MAX } }] });
  }
  return trimmed;
}

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : 'internal';
}
