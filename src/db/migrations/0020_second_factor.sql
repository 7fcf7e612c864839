-- The TOTP second factor: one authenticator per user, its recovery codes, and the challenges of sign-ins
-- waiting for a second factor. Depends only on 0001 (users).

-- `secret` is sealed with AES-256-GCM under SECRETS_KEY (src/lib/secret-box.ts), bound to the user's id.
-- A row with `enabled_at` NULL is a setup not yet confirmed with a code; a new setup replaces it.
-- `last_step` is the RFC 6238 time step of the last code accepted: only a later step is accepted, so a
-- code works once, even in the window either side of its own.
CREATE TABLE totp_credentials (
  user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  secret text NOT NULL,
  enabled_at timestamptz,
  last_step bigint,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Single-use: a used code is deleted. Only the SHA-256 of each code is kept.
CREATE TABLE recovery_codes (
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  code_hash bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, code_hash)
);

-- A sign-in whose password (or provider token) proved right, waiting for the second factor. Only the
-- SHA-256 of the 256-bit challenge is kept; it dies when used, after `expires_at`, or after 5 wrong codes.
CREATE TABLE second_factor_challenges (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  challenge_hash bytea NOT NULL,
  failures integer NOT NULL DEFAULT 0,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE UNIQUE INDEX second_factor_challenges_hash_key ON second_factor_challenges (challenge_hash);
CREATE INDEX second_factor_challenges_user_idx ON second_factor_challenges (user_id);
