import type { WebhookAttemptOutcome } from '../../db/schema-events.js';
import type { Executor } from '../../db/transaction.js';

/** One attempt as `webhook deliveries` lists it. */
export interface AttemptRow {
  event_id: string;
  endpoint_id: string;
  type: string;
  attempt: number;
  attempted_at: Date;
  outcome: WebhookAttemptOutcome;
  status_code: number | null;
  error: string | null;
  next_attempt_at: Date | null;
}

/** The record of delivery attempts (webhook_attempts), as the operator lists it. */
export class WebhookAttemptsRepo {
  constructor(private readonly db: Executor) {}

  /** The latest attempts, newest first: of one endpoint or all, and only those that got no 2xx when asked. */
  async list(options: { endpointId?: string; failed: boolean; limit: number }): Promise<AttemptRow[]> {
    let query = this.db
      .selectFrom('webhook_attempts as a')
      .innerJoin('account_events as e', 'e.id', 'a.event_id')
      .select([
        'a.event_id',
        'a.endpoint_id',
        'e.type',
        'a.attempt',
        'a.attempted_at',
        'a.outcome',
        'a.status_code',
        'a.error',
        'a.next_attempt_at',
      ]);
    if (options.endpointId !== undefined) query = query.where('a.endpoint_id', '=', options.endpointId);
    if (options.failed) query = query.where('a.outcome', '<>', 'delivered');
    return query.orderBy('a.id', 'desc').limit(options.limit).execute();
  }
}
