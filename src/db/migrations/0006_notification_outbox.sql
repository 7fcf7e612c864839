-- Pushes recorded by the `log` push transport (the test notification): one row per delivery,
-- so a developer or an operator without FCM sees exactly what would have been sent, to which device.
-- The push token itself is deliberately not stored: (user_id, device_id) already names the device, and a push
-- token is an address that reaches a phone: a table of them is one more place to leak and to keep in sync when
-- a token moves or is dropped. The payload is what the device would have shown.

CREATE TABLE notification_outbox (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  device_id text NOT NULL,
  payload jsonb NOT NULL,
  status text NOT NULL CHECK (status IN ('sent', 'failed')),
  error text,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX notification_outbox_user_created_idx ON notification_outbox (user_id, created_at);
