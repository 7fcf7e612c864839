import { type PeriodicRun, runPeriodically } from '../../lib/periodic.js';
import type { GuardianRepo } from '../../modules/guardian/repo.js';
import type { DeletedAccount } from '../deletion/eraser.js';
import type { SweepLogger } from '../deletion/sweep.js';
import type { ChildEraser } from './service.js';

/**
 * Children whose guardian did not consent within GUARDIAN_CONSENT_DAYS of sign-up are erased, with
 * everything collected to ask (PIPA art. 22-2). Each is erased in its own transaction that checks, under the
 * row's lock, that the consent is still pending: a consent that got there first wins.
 */
export class GuardianDeadline {
  constructor(
    private readonly repo: GuardianRepo,
    private readonly eraser: ChildEraser,
    private readonly consentDays: number,
  ) {}

  async eraseDue(limit = 100): Promise<DeletedAccount[]> {
    const due = await this.repo.pastDeadline(this.consentDays, limit);
    const erased: DeletedAccount[] = [];
    for (const child of due) {
      const done = await this.eraser.erase(child, (row) => row.guardian_consent === 'pending');
      if (done) erased.push({ id: child.id, username: child.username });
    }
    return erased;
  }
}

/** Runs the deadline's sweep at start and then every `intervalMs` (passes never overlap). */
export function sweepGuardianDeadlinePeriodically(
  deadline: GuardianDeadline,
  intervalMs: number,
  log: SweepLogger,
  batch = 100,
): PeriodicRun {
  const pass = async (stopping: AbortSignal) => {
    let found: DeletedAccount[];
    do {
      found = await deadline.eraseDue(batch);
      // Ids only: the child's data is being destroyed.
      if (found.length > 0)
        log.info({ users: found.map((user) => user.id) }, 'guardian deadline: accounts erased');
    } while (found.length === batch && !stopping.aborted);
  };
  return runPeriodically(
    (stopping) =>
      pass(stopping).catch((error: unknown) => log.warn({ err: error }, 'guardian deadline sweep failed')),
    intervalMs,
  );
}
