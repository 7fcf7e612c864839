import type { Tracing } from '../../lib/tracing.js';
import type { ClaimedDelivery } from './deliveries-repo.js';
import type { AttemptOutcome, SignedDelivery } from './sender.js';

/** An attempt the receiver did not take: thrown inside the span only, to mark it an error. */
class AttemptNotDelivered extends Error {
  constructor(readonly outcome: AttemptOutcome) {
    super(outcome.error ?? `HTTP ${outcome.statusCode}`);
    this.name = 'AttemptNotDelivered';
  }
}

/**
 * Sends one attempt, traced when tracing is on. The span's parent is the request that wrote the event (its
 * stored traceparent, 0047), not the delivery pass: one trace then shows a sign-up, its delivery and the
 * receiver's handling of it, however much later the queue sends it. A span link would leave each delivery a
 * trace of its own; an event has exactly one cause, so the delivery is its child. The receiver gets the
 * delivery span's own `traceparent`.
 */
export function sendTraced(
  sender: { send(delivery: SignedDelivery): Promise<AttemptOutcome> },
  tracing: Tracing | undefined,
  delivery: ClaimedDelivery,
  signed: SignedDelivery,
): Promise<AttemptOutcome> {
  if (tracing === undefined || !tracing.enabled) return sender.send(signed);
  const attributes = {
    'webhook.event_type': delivery.type,
    'webhook.endpoint_id': delivery.endpoint_id,
    'webhook.attempt': delivery.attempts + 1,
  };
  return tracing
    .underTraceparent(delivery.traceparent, () =>
      tracing.span('webhook deliver', attributes, async () => {
        const outcome = await sender.send({ ...signed, traceparent: tracing.traceparent() });
        const status = outcome.statusCode;
        if (status === undefined || status < 200 || status > 299) throw new AttemptNotDelivered(outcome);
        return outcome;
      }),
    )
    .catch((error: unknown) => {
      if (error instanceof AttemptNotDelivered) return error.outcome;
      throw error;
    });
}
