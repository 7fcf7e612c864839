import { type PeriodicRun, runPeriodically } from '../../lib/periodic.js';
import type { DeletedAccount } from './eraser.js';

/** What the sweep runs: AccountEraser.eraseDue. */
export interface DueDeletions {
  eraseDue(limit?: number): Promise<DeletedAccount[]>;
}

export interface SweepLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

/**
 * Erases the accounts whose grace period is over at start and then every `intervalMs`, a pass at a time
 * (passes never overlap; a pass that finds a full batch goes on at once with the next, until stopped).
 */
export function sweepDueDeletionsPeriodically(
  deletions: DueDeletions,
  intervalMs: number,
  log: SweepLogger,
  batch = 100,
): PeriodicRun {
  const pass = async (stopping: AbortSignal) => {
    let erased: DeletedAccount[];
    do {
      erased = await deletions.eraseDue(batch);
      // Ids only: the username is the user's, and they asked to be forgotten.
      if (erased.length > 0) log.info({ users: erased.map((user) => user.id) }, 'scheduled deletions done');
    } while (erased.length === batch && !stopping.aborted);
  };
  return runPeriodically(
    (stopping) =>
      pass(stopping).catch((error: unknown) => log.warn({ err: error }, 'scheduled deletion sweep failed')),
    intervalMs,
  );
}
