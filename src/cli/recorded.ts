import { hostname } from 'node:os';
import type { AccessRecordOutcome } from '../modules/access-records/service.js';
import type { OperatorServices } from './context.js';
import type { CommandEnvironment } from './environment.js';

/** What a command tells its record once it knows it: whose data, and details (a query, a row count). */
export interface RecordNote {
  subject(id: string): void;
  detail(values: Record<string, unknown>): void;
}

/** An error's message in a record: one line, short (a record's detail stays small). */
const errorLine = (error: unknown) => (error instanceof Error ? error.message : String(error)).slice(0, 300);

/**
 * Runs one user-touching command's work with the operator services and appends its access record (actor
 * `cli`, the OS user who ran it; the host in `detail`, as a command has no client address): `ok` when the
 * work ends, `failed` with the error's line when it throws (a user not found included; `refused` is for a
 * staff member's missing permission, which a command's operator never lacks). The record follows the
 * work, in its own transaction: the user services commit their changes themselves. A record that cannot
 * be written fails the command. Mistakes caught before any work (a missing --yes) touch no one: no record.
 */
export function recorded<T>(
  { withServices, osUser }: CommandEnvironment,
  action: string,
  work: (services: OperatorServices, note: RecordNote) => Promise<T>,
): Promise<T> {
  return withServices(async (services) => {
    let subjectId: string | null = null;
    const detail: Record<string, unknown> = { host: hostname() };
    const note: RecordNote = {
      subject: (id) => {
        subjectId = id;
      },
      detail: (values) => Object.assign(detail, values),
    };
    const append = (outcome: AccessRecordOutcome) =>
      services.accessRecords.append({
        actor: { kind: 'cli', osUser },
        clientAddress: null,
        subjectId,
        action,
        outcome,
        detail,
      });
    let result: T;
    try {
      result = await work(services, note);
    } catch (error) {
      detail.error = errorLine(error);
      await append('failed');
      throw error;
    }
    await append('ok');
    return result;
  });
}
