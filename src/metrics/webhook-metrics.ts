import { Counter, Gauge, type Registry } from 'prom-client';

/** The webhook queue as the delivery loop last read it. */
export interface WebhookBacklog {
  /** Pending deliveries and events not yet fanned out. */
  pending: number;
  /** When the oldest of them happened (null = none). */
  oldestAt: Date | null;
}

/** How an attempt ended, by endpoint: delivered, to be retried, or failed for good. */
export type WebhookAttemptOutcome = 'delivered' | 'retry' | 'failed';

/**
 * The webhook gauges and counter. Deliveries are labelled by endpoint id: the operator adds endpoints one by
 * one, so the set is small and never comes from a request. The backlog is what the delivery loop last read
 * (every 15 s): a scrape reads no database, so it never waits for a connection.
 */
export function registerWebhookMetrics(registry: Registry): {
  attempted(endpointId: string, outcome: WebhookAttemptOutcome): void;
  backlog(backlog: WebhookBacklog): void;
} {
  const registers = [registry];
  const attempts = new Counter({
    name: 'webhook_deliveries_total',
    help: 'Webhook delivery attempts, by endpoint id and outcome (delivered, retry, failed).',
    labelNames: ['endpoint', 'outcome'],
    registers,
  });
  let last: WebhookBacklog = { pending: 0, oldestAt: null };
  new Gauge({
    name: 'webhook_queue_depth',
    help: 'Webhook deliveries pending, and account events not yet fanned out to endpoints.',
    registers,
    collect() {
      this.set(last.pending);
    },
  });
  new Gauge({
    name: 'webhook_oldest_undelivered_seconds',
    help: 'Age of the oldest account event with a delivery pending or not yet fanned out (0 = none).',
    registers,
    collect() {
      this.set(last.oldestAt ? Math.max(0, (Date.now() - last.oldestAt.getTime()) / 1000) : 0);
    },
  });
  return {
    attempted: (endpoint, outcome) => attempts.inc({ endpoint, outcome }),
    backlog: (backlog) => {
      last = backlog;
    },
  };
}
