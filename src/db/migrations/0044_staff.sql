-- The people who run the service (docs/console.md): staff are not users, and nothing of the app's API
-- reads or writes these tables. A staff member signs in with a password AND a TOTP second factor, both set
-- on a one-time enrollment link; only digests of the link's token and of the session tokens are kept.
CREATE TABLE staff (
  id uuid PRIMARY KEY,
  -- Lower-cased when written: one person, one row.
  email text NOT NULL UNIQUE,
  role text NOT NULL CHECK (role IN ('viewer', 'support', 'content', 'admin')),
  password_hash text,
  -- The TOTP secret sealed with SECRETS_KEY (as the users' second factor), bound to this staff id.
  totp_sealed text,
  -- The last time step accepted: a code works once.
  totp_last_step bigint,
  enrollment_token_hash bytea UNIQUE,
  enrollment_expires_at timestamptz,
  -- Set when the password and the second factor are both set; nothing signs in before.
  enrolled_at timestamptz,
  disabled_at timestamptz,
  -- Wrong passwords or codes in a row; the fifth locks the account until locked_until (or an unlock).
  failed_attempts smallint NOT NULL DEFAULT 0,
  locked_until timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Every grant, change and revocation of a staff member's rights: who, when, before and after. Kept at
-- least three years (개인정보의 안전성 확보조치 기준 §5): no code deletes a row, and the database refuses to
-- change one or to delete one younger than that. Not a foreign key: the record outlives a removed member.
CREATE TABLE staff_rights_changes (
  id uuid PRIMARY KEY,
  staff_id uuid NOT NULL,
  staff_email text NOT NULL,
  -- Who made the change: `cli:<os user>` or `staff:<id>`.
  actor text NOT NULL,
  action text NOT NULL CHECK (action IN ('grant', 'change', 'disable', 'enable', 'remove', 'unlock')),
  role_before text,
  role_after text,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX staff_rights_changes_staff ON staff_rights_changes (staff_id, created_at);

CREATE FUNCTION staff_rights_changes_kept() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    RAISE EXCEPTION 'staff_rights_changes rows are never changed';
  END IF;
  IF OLD.created_at > now() - interval '3 years' THEN
    RAISE EXCEPTION 'staff_rights_changes rows are kept for three years';
  END IF;
  RETURN OLD;
END;
$$;

CREATE TRIGGER staff_rights_changes_kept BEFORE UPDATE OR DELETE ON staff_rights_changes
  FOR EACH ROW EXECUTE FUNCTION staff_rights_changes_kept();

-- Staff sessions, shared by every instance: only the SHA-256 of the cookie's token. A session ends when idle
-- longer than CONSOLE_IDLE_TIMEOUT (last_seen_at) or at expires_at (12 hours after the sign-in), whichever
-- comes first.
CREATE TABLE staff_sessions (
  id uuid PRIMARY KEY,
  staff_id uuid NOT NULL REFERENCES staff (id) ON DELETE CASCADE,
  token_hash bytea NOT NULL UNIQUE,
  client_address text NOT NULL,
  created_at timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);

CREATE INDEX staff_sessions_staff ON staff_sessions (staff_id);
CREATE INDEX staff_sessions_expires_at ON staff_sessions (expires_at);
