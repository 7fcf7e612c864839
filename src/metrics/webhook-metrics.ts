import { Counter, Gauge, type Registry } from 'prom-client';

/** The webhook queue as a scrape reads it. */
export interface WebhookBacklog {
  /** Pending deliveries and events not yet fanned out. */
  pending: number;
  /** Seconds since the oldest of them happened (0 = none). */
  oldestSeconds: number;
}

/** How an attempt ended, by endpoint: delivered, to be retried, or failed for good. */
export type WebhookAttemptOutcome = 'delivered' | 'retry' | 'failed';

/**
 * The webhook gauges and counter. Deliveries are labelled by endpoint id: the operator adds endpoints one by
 * one, so the set is small and never comes from a request. The backlog is read from the database when
 * scraped (two probes of partial indexes); a failed read leaves the last values.
 */
export function registerWebhookMetrics(
  registry: Registry,
  backlog: () => Promise<WebhookBacklog>,
): { attempted(endpointId: string, outcome: WebhookAttemptOutcome): void } {
  const registers = [registry];
  const attempts = new Counter({
    name: 'webhook_deliveries_total',
    help: 'Webhook delivery attempts, by endpoint id and outcome (delivered, retry, failed).',
    labelNames: ['endpoint', 'outcome'],
    registers,
  });
  let last: Promise<WebhookBacklog> | undefined;
  // One database read per scrape for both gauges.
  const read = () => {
    last ??= backlog().finally(() => {
      last = undefined;
    });
    return last;
  };
  new Gauge({
    name: 'webhook_queue_depth',
    help: 'Webhook deliveries pending, and account events not yet fanned out to endpoints.',
    registers,
    async collect() {
      const current = await read().catch(() => undefined);
      if (current) this.set(current.pending);
    },
  });
  new Gauge({
    name: 'webhook_oldest_undelivered_seconds',
    help: 'Age of the oldest account event with a delivery pending or not yet fanned out (0 = none).',
    registers,
    async collect() {
      const current = await read().catch(() => undefined);
      if (current) this.set(current.oldestSeconds);
    },
  });
  return { attempted: (endpoint, outcome) => attempts.inc({ endpoint, outcome }) };
}
