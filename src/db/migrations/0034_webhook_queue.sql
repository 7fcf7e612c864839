-- The delivery queue holds only what waits to be sent: a delivery that succeeds or fails for good leaves it,
-- and the attempts are its record. Every sign-up and login makes deliveries, and each row written per
-- delivery was most of what one cost the database (docs/performance.md): a new event's deliveries are now
-- written already claimed by the instance that fans them out, and a finished one is deleted rather than
-- rewritten, so a delivery is one insert, one delete and its attempt.

-- Each attempt says how it ended (`delivered`, `retry` or `failed`, as the metrics do) and which try of its
-- delivery it was: the delivery row it belonged to no longer outlives the delivery.
ALTER TABLE webhook_attempts ADD COLUMN attempt integer, ADD COLUMN outcome text;
UPDATE webhook_attempts a
SET attempt = n.attempt,
  outcome = CASE
    WHEN a.status_code BETWEEN 200 AND 299 THEN 'delivered'
    WHEN a.next_attempt_at IS NOT NULL THEN 'retry'
    ELSE 'failed'
  END
FROM (
  SELECT id, row_number() OVER (PARTITION BY event_id, endpoint_id ORDER BY id) AS attempt FROM webhook_attempts
) n
WHERE n.id = a.id;
ALTER TABLE webhook_attempts
  ALTER COLUMN attempt SET NOT NULL,
  ALTER COLUMN outcome SET NOT NULL,
  ADD CONSTRAINT webhook_attempts_outcome_check CHECK (outcome IN ('delivered', 'retry', 'failed')),
  DROP CONSTRAINT webhook_attempts_event_id_endpoint_id_fkey;

-- `webhook deliveries [ID] [--failed]` lists newest first by id (the order attempts were recorded in).
DROP INDEX webhook_attempts_attempted_at_idx;
CREATE INDEX webhook_attempts_endpoint_idx ON webhook_attempts (endpoint_id, id);
CREATE INDEX webhook_attempts_failed_idx ON webhook_attempts (endpoint_id, id) WHERE outcome <> 'delivered';

DELETE FROM webhook_deliveries WHERE status <> 'pending';
DROP INDEX webhook_deliveries_due_idx;
ALTER TABLE webhook_deliveries
  DROP COLUMN status,
  DROP COLUMN last_attempt_at,
  DROP COLUMN last_status_code,
  DROP COLUMN last_error,
  DROP COLUMN delivered_at;
-- Every row waits: due at `next_attempt_at`, or claimed until then. What waits for a disabled endpoint is
-- parked at 'infinity' until it is enabled, so that probes for due rows never step over it.
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at);
UPDATE webhook_deliveries d SET next_attempt_at = 'infinity'
FROM webhook_endpoints w
WHERE w.id = d.endpoint_id AND w.disabled_at IS NOT NULL AND d.lease IS NULL;
