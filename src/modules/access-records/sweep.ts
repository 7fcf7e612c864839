import { type PeriodicRun, runPeriodically } from '../../lib/periodic.js';
import type { AccessRecords } from './service.js';

export interface SweepLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

/**
 * Sweeps the access records older than the retention once now and then every `intervalMs`, one pass at a
 * time. Every instance runs it: each batch locks the chain's head, so two instances sweep one after the
 * other and the second finds nothing left. A failed pass is logged and tried again at the next interval.
 */
export function sweepAccessRecordsPeriodically(
  records: AccessRecords,
  retentionDays: number,
  intervalMs: number,
  log: SweepLogger,
): PeriodicRun {
  return runPeriodically(
    (signal) =>
      records.sweep(retentionDays, { signal }).then(
        (removed) => {
          if (removed > 0) log.info({ removed, retentionDays }, 'old access records swept');
        },
        (error: unknown) => log.warn({ err: error }, 'access records sweep failed'),
      ),
    intervalMs,
  );
}
