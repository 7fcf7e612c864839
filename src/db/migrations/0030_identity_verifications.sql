-- Carrier identity verification through PortOne (본인인증, docs/identity.md).
--
-- The ids the service issues for a verification: bound to the user who asked, valid 30 minutes, used once
-- (`used_at`). The id is no secret (the app hands it to PortOne's SDK); binding it to its user is what
-- stops someone else's verification from being claimed.
CREATE TABLE identity_verification_requests (
  id text PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  used_at timestamptz
);
CREATE INDEX identity_verification_requests_user_idx ON identity_verification_requests (user_id, created_at);

-- The account's last verification: what it showed of the person, never the CI itself, the phone number or
-- the full name. `ci_hash` is an HMAC of the CI under a key derived from SECRETS_KEY (the same person gives
-- the same hash at every verification, and a copy of the database alone cannot be matched against another
-- service's CIs). `ci_binding` holds the same hash while the account claims the person for itself
-- (IDENTITY_ONE_ACCOUNT_PER_PERSON): unique, so one person holds one live account. An erasure removes the
-- row with its user; `accounts identity release` clears the binding alone.
CREATE TABLE identity_verifications (
  user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  ci_hash bytea NOT NULL,
  ci_binding bytea,
  birth_date date NOT NULL,
  foreigner boolean NOT NULL,
  masked_name text NOT NULL,
  verified_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX identity_verifications_ci_binding_key ON identity_verifications (ci_binding);
