import { type PeriodicRun, runPeriodically } from '../../lib/periodic.js';
import type { SecurityEventsService } from './service.js';

/** How often each instance prunes: old events are due by the day, so an hour's delay changes nothing. */
export const PRUNE_INTERVAL_MS = 60 * 60 * 1000;

export interface PruneLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

/**
 * Prunes events older than `days` once now and then every `intervalMs`, one pass at a time (stopping the
 * returned run waits for a pass under way, so none runs on after the database closed). Every
 * instance runs it: the batches skip rows another instance is deleting, so they share the work. A failed
 * pass is logged and tried again at the next interval.
 */
export function prunePeriodically(
  events: SecurityEventsService,
  days: number,
  log: PruneLogger,
  intervalMs = PRUNE_INTERVAL_MS,
): PeriodicRun {
  return runPeriodically(
    () =>
      events.prune(days).then(
        (removed) => {
          if (removed > 0) log.info({ removed, days }, 'old security events pruned');
        },
        (error: unknown) => log.warn({ err: error }, 'security events prune failed'),
      ),
    intervalMs,
  );
}
