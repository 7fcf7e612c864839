-- Data exports (the right of access): one zip of everything the service holds about a user, built in the
-- background and downloadable through a link until it expires.

-- `next_attempt_at` doubles as a lease, as in mail_outbox: a builder claims a pending export by moving it into
-- the future, so two instances never build one export at once, and one whose builder died is due again once
-- the lease runs out. `file_key` names the zip in the export store while the export is ready.
CREATE TABLE data_exports (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'ready', 'expired', 'failed')),
  locale text NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  last_error text,
  file_key text,
  created_at timestamptz NOT NULL DEFAULT now(),
  ready_at timestamptz,
  expires_at timestamptz
);

-- At most one pending export per user: two requests racing both insert, and the index lets one through.
CREATE UNIQUE INDEX data_exports_one_pending_key ON data_exports (user_id) WHERE status = 'pending';
-- A user's exports (their status, their files when the account is erased).
CREATE INDEX data_exports_user_idx ON data_exports (user_id, created_at);
-- The builders' claim: the earliest due pending export.
CREATE INDEX data_exports_due_idx ON data_exports (next_attempt_at) WHERE status = 'pending';
-- The expiry sweep: ready exports whose time is up.
CREATE INDEX data_exports_expiry_idx ON data_exports (expires_at) WHERE status = 'ready';

-- A user's posts in id order (UUIDv7: creation order), so an export reads them a keyset page at a time.
CREATE INDEX posts_user_id_id_idx ON posts (user_id, id);

-- The HMAC key of download links (244 random bits from two v4 UUIDs, PostgreSQL's strong source): a link is derived from
-- the export's id, so the service keeps no token, and the same link is shown in the API and in the mail.
INSERT INTO service_secrets (name, secret)
VALUES ('data_export_link', decode(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex'));
