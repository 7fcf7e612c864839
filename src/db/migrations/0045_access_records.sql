-- The access records (접속기록) of the console, the admin API and the operator commands: who did what to
-- whose data, when, from where, and how it ended. Append-only and tamper-evident: each record carries the
-- SHA-256 of its own fields and of the record before it (src/modules/access-records/chain.ts), so a row
-- changed or deleted by hand breaks the chain where it was touched (`accounts audit verify`).
CREATE TABLE access_records (
  -- The chain's order: given out one by one under the head's row lock, so it has no gaps and no forks.
  seq bigint PRIMARY KEY,
  at timestamptz NOT NULL,
  actor_kind text NOT NULL CHECK (actor_kind IN ('staff', 'cli')),
  -- A staff member's id, or the operating-system user who ran the command. No foreign key: a record
  -- outlives the staff account it names.
  actor text NOT NULL CHECK (length(actor) BETWEEN 1 AND 128),
  client_address text CHECK (length(client_address) <= 64),
  -- Whose data; null for an action on no one person (a search, an export: its query and rows in detail).
  subject_id uuid,
  action text NOT NULL CHECK (action ~ '^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$' AND length(action) <= 64),
  reason text CHECK (length(reason) <= 500),
  outcome text NOT NULL CHECK (outcome IN ('ok', 'refused', 'failed')),
  detail jsonb NOT NULL DEFAULT '{}',
  -- Lower-case hex, so `psql` shows them as the verifier prints them.
  prev_hash text NOT NULL CHECK (prev_hash ~ '^[0-9a-f]{64}$'),
  hash text NOT NULL CHECK (hash ~ '^[0-9a-f]{64}$')
);

-- The console's filters (/console/audit): newest first by (at, seq), a keyset walk on the index of the
-- filter given, a period being a range of the same index; `at` alone also serves the review's months and
-- the retention's cut-off. A staff id (a UUID) and an OS user name never look alike, so the actor alone
-- leads its index and a filter need not name the kind.
CREATE INDEX access_records_actor ON access_records (actor, at, seq);
CREATE INDEX access_records_subject ON access_records (subject_id, at, seq) WHERE subject_id IS NOT NULL;
CREATE INDEX access_records_action ON access_records (action, at, seq);
CREATE INDEX access_records_at ON access_records (at, seq);

-- The chain's one head: the last record's number and hash (every append locks this row FOR UPDATE, so
-- appends from any number of instances line up into one chain), and the anchor the verification starts
-- from: the first kept record's number and the hash it must chain to (all zeros until the retention's
-- first sweep, then the hash of the last record swept).
CREATE TABLE access_record_head (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  last_seq bigint NOT NULL,
  last_hash text NOT NULL CHECK (last_hash ~ '^[0-9a-f]{64}$'),
  anchor_seq bigint NOT NULL,
  anchor_hash text NOT NULL CHECK (anchor_hash ~ '^[0-9a-f]{64}$')
);
INSERT INTO access_record_head (last_seq, last_hash, anchor_seq, anchor_hash)
VALUES (0, repeat('0', 64), 1, repeat('0', 64));

-- Append-only in the database too: no UPDATE, no TRUNCATE, and DELETE only by the retention's sweep, which
-- sets accounts.access_record_sweep for its own transaction (and moves the head's anchor in it).
CREATE FUNCTION access_records_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND current_setting('accounts.access_record_sweep', true) = 'on' THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'access_records are append-only (% refused)', TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$;

CREATE TRIGGER access_records_append_only BEFORE UPDATE OR DELETE ON access_records
  FOR EACH ROW EXECUTE FUNCTION access_records_append_only();
CREATE TRIGGER access_records_no_truncate BEFORE TRUNCATE ON access_records
  FOR EACH STATEMENT EXECUTE FUNCTION access_records_append_only();
