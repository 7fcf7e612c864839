import { type PeriodicRun, runPeriodically } from '../../lib/periodic.js';
/** How often each instance removes the Idempotency-Key records past their day. */
export const PRUNE_INTERVAL_MS = 60 * 60 * 1_000;

export interface PruneLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

/**
 * Prunes once now and then every `intervalMs`, one prune at a time; returns its run (stopping it
 * waits for a prune in progress, so none runs on after the database is closed). A failed prune is logged and
 * tried again at the next interval: the records only take room meanwhile.
 */
export function prunePeriodically(
  records: { prune(): Promise<number> },
  intervalMs: number,
  log: PruneLogger,
): PeriodicRun {
  return runPeriodically(
    () =>
      records.prune().then(
        (removed) => {
          if (removed > 0) log.info({ removed }, 'expired idempotency keys removed');
        },
        (error: unknown) => log.warn({ err: error }, 'idempotency key prune failed'),
      ),
    intervalMs,
  );
}
