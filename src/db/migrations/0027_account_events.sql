-- Account events for the app's other services (docs/events.md): the outbox, written in the same transaction
-- (or statement) as the change each row describes, so an event exists exactly when its change committed.
-- `data` is the event's public JSON (never a secret); `user_id` names the account it is about (no foreign
-- key: `user.deleted` outlives its user) so an erasure can find its user's rows. `dispatched_at` is null
-- until the delivery pass has fanned the event out to the endpoints subscribed to it at that moment.
CREATE TABLE account_events (
  id uuid PRIMARY KEY,
  type text NOT NULL,
  user_id uuid,
  data jsonb NOT NULL,
  occurred_at timestamptz NOT NULL DEFAULT now(),
  dispatched_at timestamptz
);

-- The delivery pass takes the undispatched events, oldest first, on this partial index (it stays small);
-- the purge walks by age; an erasure and a replay find a user's events.
CREATE INDEX account_events_undispatched_idx ON account_events (occurred_at) WHERE dispatched_at IS NULL;
CREATE INDEX account_events_occurred_at_idx ON account_events (occurred_at);
CREATE INDEX account_events_user_id_idx ON account_events (user_id, occurred_at);
