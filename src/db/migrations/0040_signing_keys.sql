-- The keys access tokens are signed with (docs/tokens.md). `kid` is the RFC 7638 thumbprint of the public
-- key; `public_jwk` is what /.well-known/jwks.json publishes; `private_sealed` is the PKCS#8 private key
-- sealed with SECRETS_KEY (lib/secret-box.ts, bound to the kid), so a copy of the database alone signs
-- nothing. A key is published from `publish_from`, signs from `sign_from` (the latest such key signs), and
-- is dropped after `retire_after` (null until a successor is scheduled: then the end of its last token).
CREATE TABLE signing_keys (
  kid text PRIMARY KEY,
  alg text NOT NULL,
  public_jwk jsonb NOT NULL,
  private_sealed text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  publish_from timestamptz NOT NULL,
  sign_from timestamptz NOT NULL,
  retire_after timestamptz
);

-- How a session was opened, for the access tokens' `amr` claim: the `session.created` event's method, kept
-- on the token because events are purged after EVENT_RETENTION_DAYS. Sessions older than the column take
-- it from their event while it is still there.
ALTER TABLE api_tokens ADD COLUMN sign_in_method text;

UPDATE api_tokens SET sign_in_method = e.data->>'method'
FROM account_events e
WHERE e.type = 'session.created' AND e.data->>'session_id' = api_tokens.id::text;
