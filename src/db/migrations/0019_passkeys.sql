-- Passkeys (WebAuthn credentials), opt-in per user, and the challenges of their ceremonies.

-- The WebAuthn user handle of each user who started adding a passkey: 32 random bytes, never the email or
-- the user id, so an authenticator (or whoever reads it) learns nothing about the account from it. Stable:
-- every passkey of one user carries the same handle, as the specification asks.
CREATE TABLE webauthn_user_handles (
  user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  handle bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE UNIQUE INDEX webauthn_user_handles_handle_key ON webauthn_user_handles (handle);

-- One row per credential. `credential_id` is what the authenticator names the credential by (unique: one
-- credential belongs to one account); `public_key` its COSE public key. Nothing here is secret: a passkey's
-- private key never leaves the authenticator. `sign_count` is the authenticator's signature counter (0 for
-- those that keep none): an assertion whose counter does not move forward is refused as a possible clone.
CREATE TABLE passkeys (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  credential_id bytea NOT NULL,
  public_key bytea NOT NULL,
  sign_count bigint NOT NULL DEFAULT 0 CHECK (sign_count >= 0),
  transports text[] NOT NULL DEFAULT '{}',
  device_type text NOT NULL CHECK (device_type IN ('singleDevice', 'multiDevice')),
  backed_up boolean NOT NULL,
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz
);

CREATE UNIQUE INDEX passkeys_credential_id_key ON passkeys (credential_id);
-- A user's passkeys, oldest first (the list, the exclusion list, the last-way-to-sign-in count).
CREATE INDEX passkeys_user_id_idx ON passkeys (user_id, id);

-- A ceremony's challenge: single-use (consumed by the DELETE that reads it), short-lived, and for sign-in
-- and re-authentication looked up by its id. Only the SHA-256 of the challenge is kept. `user_id` binds a
-- registration or re-authentication challenge to the signed-in user; a sign-in challenge names nobody.
CREATE TABLE webauthn_challenges (
  id uuid PRIMARY KEY,
  purpose text NOT NULL CHECK (purpose IN ('registration', 'authentication', 'reauthentication')),
  user_id uuid REFERENCES users (id) ON DELETE CASCADE,
  challenge_hash bytea NOT NULL,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE UNIQUE INDEX webauthn_challenges_challenge_hash_key ON webauthn_challenges (challenge_hash);
-- Expired challenges are pruned when new ones are made.
CREATE INDEX webauthn_challenges_expires_at_idx ON webauthn_challenges (expires_at);
-- The user's challenges (deleting a user cascades on this).
CREATE INDEX webauthn_challenges_user_id_idx ON webauthn_challenges (user_id) WHERE user_id IS NOT NULL;
