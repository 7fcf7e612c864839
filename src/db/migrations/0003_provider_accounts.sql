-- Identities at external providers linked to users (social sign-in).
-- One account per provider identity, and one identity per provider per user: these indexes settle races
-- between two sign-ups (or links) of the same identity, which the service reports as a 422.
-- Provider tokens are never stored: they are checked with the provider on every use.

CREATE TABLE provider_accounts (
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  provider text NOT NULL,
  provider_user_id text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, provider)
);

CREATE UNIQUE INDEX provider_accounts_identity_key ON provider_accounts (provider, provider_user_id);
