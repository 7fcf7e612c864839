-- The signed-in user's devices.
-- One row per (user, device_id), upserted by the app at every start.
-- A push token belongs to one device: the partial unique index settles races between two accounts
-- registering the same phone, so a shared phone never gets the previous account's notifications.
-- api_token_id is the session that last registered the device: revoking that session (logout, revoke,
-- a password change) removes the device, so a signed-out phone stops receiving that account's pushes.

CREATE TABLE devices (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  device_id text NOT NULL,
  platform text CHECK (platform IN ('ios', 'android', 'web')),
  push_token text,
  app_version text,
  os_version text,
  locale text,
  timezone text,
  push_enabled boolean NOT NULL DEFAULT true,
  api_token_id uuid REFERENCES api_tokens (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE UNIQUE INDEX devices_user_device_key ON devices (user_id, device_id);
CREATE UNIQUE INDEX devices_push_token_key ON devices (push_token) WHERE push_token IS NOT NULL;
CREATE INDEX devices_api_token_id_idx ON devices (api_token_id);
