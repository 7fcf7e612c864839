import { type Env, integer } from './env.js';
import { duration } from './mail.js';

/** Account deletion: how long a user may take it back, and how often the server erases what is due. */
export interface DeletionConfig {
  /** DELETION_GRACE_DAYS: days between user/delete and the erasure; 0 = erased at once, nothing to cancel. */
  graceDays: number;
  /** DELETION_SWEEP_INTERVAL: how often each instance erases the accounts whose grace period is over. */
  sweepIntervalMs: number;
}

export function parseDeletion(env: Env): DeletionConfig {
  return {
    graceDays: integer(env, 'DELETION_GRACE_DAYS', 14, 0, 365),
    sweepIntervalMs: duration(env, 'DELETION_SWEEP_INTERVAL', '10m', 1000, 86_400_000),
  };
}
