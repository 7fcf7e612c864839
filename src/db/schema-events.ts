import type { ColumnType } from 'kysely';
import type { Timestamp } from './column-types.js';

/* The tables of account events and their delivery to the app's other services (docs/events.md). */

/** 0027: one account event, written with the change it describes (src/modules/account-events). */
export interface AccountEventsTable {
  id: string;
  type: string;
  /** The account the event is about; no foreign key, so `user.deleted` outlives its user. */
  user_id: string | null;
  /** The event's `data` as JSON text on insert (one value of a precompiled statement), an object on select. */
  data: ColumnType<unknown, string, string>;
  occurred_at: Timestamp;
  dispatched_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** The writing request's W3C traceparent when tracing is on (0047): its deliveries join that trace. */
  traceparent: ColumnType<string | null, string | null | undefined, string | null>;
}

type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;

/** 0028: an endpoint the account events are delivered to (src/modules/webhooks). */
export interface WebhookEndpointsTable {
  id: string;
  url: string;
  description: string | null;
  /** The types it receives as JSON text on insert, an array on select; null = every type. */
  event_types: ColumnType<string[] | null, string | null, string | null>;
  /** Sealed with SECRETS_KEY (lib/secret-box.ts), bound to the endpoint's id. */
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: NullableTimestamp;
  created_at: Timestamp;
  disabled_at: NullableTimestamp;
  /** 0035: why it is disabled (`operator`, `failing`, `gone`); null while enabled. */
  disabled_reason: WebhookDisabledReason | null;
  failing_since: NullableTimestamp;
}

/** Why an endpoint is disabled: by an operator, failing for days, or its receiver answered 410 Gone. */
export type WebhookDisabledReason = 'operator' | 'failing' | 'gone';

/** How an attempt ended: delivered (a 2xx), to be retried, or failed for good (the schedule ran out). */
export type WebhookAttemptOutcome = 'delivered' | 'retry' | 'failed';

/**
 * 0028, 0034: a delivery of one event to one endpoint that waits to be sent: due at `next_attempt_at`, or
 * claimed (`lease`) until then. A delivery that succeeds or fails for good leaves the table.
 */
export interface WebhookDeliveriesTable {
  event_id: string;
  endpoint_id: string;
  /** Attempts made so far. */
  attempts: ColumnType<number, number | undefined, number>;
  next_attempt_at: Timestamp;
  lease: string | null;
}

/** 0028, 0034: one attempt of a delivery, and how it ended. */
export interface WebhookAttemptsTable {
  id: ColumnType<string, never, never>;
  event_id: string;
  endpoint_id: string;
  /** Which try of its delivery: 1 for the first (a replay counts anew). */
  attempt: number;
  attempted_at: Timestamp;
  outcome: WebhookAttemptOutcome;
  status_code: number | null;
  error: string | null;
  /** When it is tried again (a `retry`). */
  next_attempt_at: NullableTimestamp;
}
