-- Webhook endpoints and the delivery of account events to them (docs/events.md). The queue is these tables:
-- the retry state lives in the database, so a killed process loses nothing and any instance takes the work up.

-- An endpoint the operator added. `event_types` null = every type. The secrets are sealed with SECRETS_KEY
-- (lib/secret-box.ts, bound to the endpoint's id): the service must sign with them, so they cannot be hashed.
-- After a rotation the previous secret signs beside the new one until `previous_secret_expires_at`.
-- `failing_since` is the start of the current run of failed attempts (null after a success): an endpoint
-- failing for five days is disabled.
CREATE TABLE webhook_endpoints (
  id uuid PRIMARY KEY,
  url text NOT NULL,
  description text,
  event_types jsonb,
  secret text NOT NULL,
  previous_secret text,
  previous_secret_expires_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  disabled_at timestamptz,
  failing_since timestamptz
);

-- The auto-disable pass looks only at endpoints that are failing.
CREATE INDEX webhook_endpoints_failing_idx ON webhook_endpoints (failing_since)
  WHERE failing_since IS NOT NULL AND disabled_at IS NULL;

-- One event's delivery to one endpoint. A pending row is due at `next_attempt_at`; claiming it moves
-- `next_attempt_at` to the end of its lease and gives it a fresh `lease` token, so a claim that dies (a
-- killed process) is simply due again when the lease runs out, and an outcome is recorded only by the
-- holder of the current lease. A replay sets the row pending again: one row per (event, endpoint).
CREATE TABLE webhook_deliveries (
  event_id uuid NOT NULL REFERENCES account_events (id) ON DELETE CASCADE,
  endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  lease uuid,
  last_attempt_at timestamptz,
  last_status_code integer,
  last_error text,
  delivered_at timestamptz,
  PRIMARY KEY (event_id, endpoint_id)
);

-- The delivery pass: due pending rows, oldest first (an idle pass is one probe of this small index).
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
-- `webhook deliveries ID` and the removal of an endpoint.
CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, event_id);

-- Every attempt, as `accounts webhook deliveries` lists them.
CREATE TABLE webhook_attempts (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  event_id uuid NOT NULL,
  endpoint_id uuid NOT NULL,
  attempted_at timestamptz NOT NULL DEFAULT now(),
  status_code integer,
  error text,
  next_attempt_at timestamptz,
  FOREIGN KEY (event_id, endpoint_id) REFERENCES webhook_deliveries (event_id, endpoint_id) ON DELETE CASCADE
);

CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts (event_id, endpoint_id);
CREATE INDEX webhook_attempts_attempted_at_idx ON webhook_attempts (attempted_at);
