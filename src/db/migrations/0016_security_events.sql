-- The security activity log: what happened to an account (sign-ins, failed sign-ins, password, email and
-- provider changes, revoked sessions, …), when, from which IP and user agent. Append-only: rows are added by
-- the action they describe (in its transaction when it has one) and removed only by the retention prune
-- (SECURITY_EVENTS_DAYS) or with the account.
CREATE TABLE security_events (
  -- UUIDv7, made by the service: with `at` the stable keyset order of the user's list.
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  type text NOT NULL,
  -- Milliseconds, as the list's cursor carries them: a cursor never falls between two rows' precision.
  at timestamptz(3) NOT NULL DEFAULT now(),
  ip text,
  user_agent text,
  -- The device family the user agent names (browser, OS, platform), for "seen this device before?".
  device_key text,
  -- Counted events (sign_in_failed): the 10-minute window the row counts; one row per account and window.
  counted_window timestamptz,
  details jsonb NOT NULL DEFAULT '{}'::jsonb
);

-- The user's list, newest first, a page at a time (keyset on (at, id)).
CREATE INDEX security_events_user_at_idx ON security_events (user_id, at DESC, id DESC);
-- The retention prune deletes the oldest rows of every account in batches.
CREATE INDEX security_events_at_idx ON security_events (at);
-- A sign-in asks whether this account signed in (or registered) from this device before.
CREATE INDEX security_events_user_device_idx ON security_events (user_id, device_key)
  WHERE type IN ('sign_in', 'account_created');
-- Concurrent failed sign-ins of one account in one window bump one row (INSERT … ON CONFLICT).
CREATE UNIQUE INDEX security_events_counted_key ON security_events (user_id, type, counted_window)
  WHERE counted_window IS NOT NULL;

-- Alert mails that must not flood (a new-device mail at most once per account per 10 minutes): one row per
-- account and kind, claimed by an atomic upsert, so the bound holds across instances.
CREATE TABLE security_alert_slots (
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  kind text NOT NULL,
  sent_at timestamptz NOT NULL,
  PRIMARY KEY (user_id, kind)
);

-- The activity list's cursor key (HMAC), shared by every instance like the feed's.
INSERT INTO service_secrets (name, secret)
VALUES ('security_events_cursor', decode(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex'));
