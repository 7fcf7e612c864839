-- Deliveries are claimed per endpoint, so that one endpoint's backlog or stalled receiver never stands in
-- front of another's: one index on (endpoint_id, next_attempt_at) finds an endpoint's due deliveries, and
-- serves what the two it replaces served (the due probe, now made per enabled endpoint, and the endpoint's
-- foreign key, parking and enabling). A delivery's insert and delete maintain one index fewer.
DROP INDEX webhook_deliveries_due_idx;
DROP INDEX webhook_deliveries_endpoint_idx;
CREATE INDEX webhook_deliveries_endpoint_due_idx ON webhook_deliveries (endpoint_id, next_attempt_at);

-- Why an endpoint is disabled: `operator` (webhook disable), `failing` (every attempt failed for five days)
-- or `gone` (its receiver answered 410 Gone). NULL while enabled, and for endpoints disabled before this.
ALTER TABLE webhook_endpoints ADD COLUMN disabled_reason text,
  ADD CONSTRAINT webhook_endpoints_disabled_reason_check
    CHECK (disabled_reason IS NULL OR (disabled_reason IN ('operator', 'failing', 'gone') AND disabled_at IS NOT NULL));
