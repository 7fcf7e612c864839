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
 * (passes never overlap; a pass that finds a full batch goes on at once with the next). The timer does not
 * keep the process alive; the returned stop waits for a pass under way, so none runs on after the database
 * is closed.
 */
export function sweepDueDeletionsPeriodically(
  deletions: DueDeletions,
  intervalMs: number,
  log: SweepLogger,
  batch = 100,
): () => Promise<void> {
  let running: Promise<void> | undefined;
  let stopped = false;
  const pass = async () => {
    let erased: DeletedAccount[];
    do {
      erased = await deletions.eraseDue(batch);
      // Ids only: the username is the user's, and they asked to be forgotten.
      if (erased.length > 0) log.info({ users: erased.map((user) => user.id) }, 'scheduled deletions done');
    } while (erased.length === batch && !stopped);
  };
  const run = () => {
    running ??= pass()
      .catch((error: unknown) => log.warn({ err: error }, 'scheduled deletion sweep failed'))
      .finally(() => {
        running = undefined;
      });
  };
  run();
  const timer = setInterval(run, intervalMs);
  timer.unref();
  return async () => {
    stopped = true;
    clearInterval(timer);
    await running;
  };
}
