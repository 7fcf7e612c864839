-- The first answer of each register and post/create sent with an Idempotency-Key, written in the same
-- transaction as the write itself (so a record exists exactly when the write committed), for the retries
-- of that request. Nothing in it is readable without the key: key_hash is a SHA-256 over the endpoint, the
-- scope (the lower-cased email, or the signed-in user) and the key; fingerprint an HMAC of the request's
-- parameters and answer the answer encrypted (AES-256-GCM), both under keys derived from the key itself
-- (docs/SECURITY.md). Records go with their user, and are pruned once older than a day.
CREATE TABLE idempotency_keys (
  key_hash bytea PRIMARY KEY,
  fingerprint bytea NOT NULL,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  answer bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- The prune walks the oldest first; account deletion's cascade finds a user's records.
CREATE INDEX idempotency_keys_created_at_idx ON idempotency_keys (created_at);
CREATE INDEX idempotency_keys_user_id_idx ON idempotency_keys (user_id);
