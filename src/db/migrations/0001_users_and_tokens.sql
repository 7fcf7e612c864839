-- Users and their API tokens.
-- Uniqueness is case-insensitive: the rules give the message, these indexes settle races.
-- Emails, slugs and the Latin part of usernames are ASCII, so lower() agrees on every locale.

CREATE TABLE users (
  id uuid PRIMARY KEY,
  email text NOT NULL,
  username text NOT NULL,
  slug text NOT NULL,
  gender smallint NOT NULL CHECK (gender IN (0, 1)),
  bio text,
  password_hash text,
  profile_picture jsonb,
  is_inspirer boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE UNIQUE INDEX users_email_lower_key ON users (lower(email));
CREATE UNIQUE INDEX users_username_lower_key ON users (lower(username));
CREATE UNIQUE INDEX users_slug_lower_key ON users (lower(slug));

-- Only the SHA-256 of a token is kept: a leaked table does not let anyone sign in.
CREATE TABLE api_tokens (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  token_hash bytea NOT NULL,
  name text,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  expires_at timestamptz
);

CREATE UNIQUE INDEX api_tokens_token_hash_key ON api_tokens (token_hash);
CREATE INDEX api_tokens_user_id_idx ON api_tokens (user_id, created_at);
