-- Account lifecycle: email ownership, password reset, and the mail that carries their links.
-- Depends only on 0001 (users).

-- Set when the user proves they read mail at the address (a verification link, a password reset, or an
-- identity provider asserting email_verified for the same address); cleared when the email changes.
ALTER TABLE users ADD COLUMN email_verified boolean NOT NULL DEFAULT false;

-- Single-use tokens mailed to the user. Only the SHA-256 of the token is kept (a leaked table opens
-- nothing). `email` is the address the token was sent to: a token only works while that is still the
-- account's address, so a link mailed to an old address neither verifies a new one nor resets the password.
-- Issuing a token deletes the user's earlier ones of the same purpose, so there is at most one per purpose.
CREATE TABLE one_time_tokens (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  purpose text NOT NULL CHECK (purpose IN ('email_verify', 'password_reset')),
  token_hash bytea NOT NULL,
  email text NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE UNIQUE INDEX one_time_tokens_token_hash_key ON one_time_tokens (token_hash);
CREATE INDEX one_time_tokens_user_purpose_idx ON one_time_tokens (user_id, purpose);

-- Every mail the service sends: written in the request's transaction, sent after commit, retried from here.
-- `text` and `html` hold the secret link until the mail is sent through SMTP (then they are emptied); with
-- the development `log` transport the row is the mailbox, so they are kept (see docs/SECURITY.md).
-- `next_attempt_at` doubles as a lease: a sender claims a row by moving it into the future, so two
-- instances never send one mail twice, and a sender that dies mid-send leaves the row due again later.
CREATE TABLE mail_outbox (
  id uuid PRIMARY KEY,
  to_address text NOT NULL,
  kind text NOT NULL,
  locale text NOT NULL,
  subject text NOT NULL,
  text text,
  html text,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')),
  transport text,
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  sent_at timestamptz
);

CREATE INDEX mail_outbox_status_next_attempt_idx ON mail_outbox (status, next_attempt_at);
