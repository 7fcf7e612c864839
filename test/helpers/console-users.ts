import pino from 'pino';
import type {
  AccessEntry,
  AccessRecorder,
  StaffActor,
} from '../../src/account/console-users/staff-access.js';
import { AppMetrics } from '../../src/metrics/metrics.js';
import type { StaffRole } from '../../src/modules/staff/permissions.js';
import { buildConsoleUsers, type ConsoleUserServices } from '../../src/services/console-users.js';
import type { Services } from '../../src/services.js';
import type { TestApp } from './app.js';
import { buildTestServices } from './services.js';

/** The access records a console service wrote, in order (the audit service's place in these tests). */
export class RecordingAccess implements AccessRecorder {
  readonly entries: AccessEntry[] = [];

  async record(entry: AccessEntry): Promise<void> {
    this.entries.push(entry);
  }

  /** What was recorded since the last call, and a clean slate for the next step. */
  take(): AccessEntry[] {
    return this.entries.splice(0);
  }
}

export const STAFF_ADDRESS = '198.51.100.7';

/** A staff member of this role, as the admin app's session would name them. */
export function staff(role: StaffRole): StaffActor {
  return { id: STAFF_IDS[role], role, clientAddress: STAFF_ADDRESS };
}

const STAFF_IDS: Record<StaffRole, string> = {
  viewer: '0193a000-0000-7000-8000-000000000001',
  support: '0193a000-0000-7000-8000-000000000002',
  content: '0193a000-0000-7000-8000-000000000003',
  admin: '0193a000-0000-7000-8000-000000000004',
};

export interface TestConsoleUsers extends ConsoleUserServices {
  recorder: RecordingAccess;
  services: Services;
}

/** The console's user services on a test app's infrastructure, recording their access records in memory. */
export function buildTestConsoleUsers(ctx: TestApp): TestConsoleUsers {
  const services = buildTestServices(ctx);
  const recorder = new RecordingAccess();
  const built = buildConsoleUsers({
    config: ctx.config,
    deps: { ...ctx.infrastructure, log: pino({ level: 'silent' }), metrics: new AppMetrics() },
    users: services.users,
    posts: services.posts,
    activity: services.activity,
    verification: services.verification,
    scheduledDeletions: services.scheduledDeletions,
    secondFactorReset: services.secondFactorReset,
    recorder,
  });
  return { ...built, recorder, services };
}
