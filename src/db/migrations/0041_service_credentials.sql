-- The credentials the app's other services introspect tokens with (POST /oauth/introspect, HTTP Basic).
-- `client_id` is public; only the SHA-256 of the 256-bit `client_secret` is stored, as for API tokens.
CREATE TABLE service_credentials (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  client_id text NOT NULL UNIQUE,
  secret_hash bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  rotated_at timestamptz
);

CREATE UNIQUE INDEX service_credentials_name_idx ON service_credentials (lower(name));
