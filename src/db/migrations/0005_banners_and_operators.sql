-- Banners, disabled accounts and the inspirer sampling pool (promotions and the operator CLI).

-- Promotional banners, shown while now() is within [starts_at, ends_at) (either bound may be open).
-- Banners are few (an operator adds them by hand): the (position, id) index gives them in display order and
-- carries both bounds, so the active ones are read off the index without touching the table.
CREATE TABLE banners (
  id uuid PRIMARY KEY,
  title text NOT NULL,
  image_url text NOT NULL,
  link_url text,
  position integer NOT NULL DEFAULT 0,
  starts_at timestamptz,
  ends_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (starts_at IS NULL OR ends_at IS NULL OR starts_at < ends_at)
);

CREATE INDEX banners_position_idx ON banners (position, id) INCLUDE (starts_at, ends_at);

-- A disabled user cannot sign in and none of their tokens is accepted; enabling them restores both.
ALTER TABLE users ADD COLUMN disabled_at timestamptz;

-- `accounts inspirer list`: every user marked inspirer (disabled ones too), by username.
CREATE INDEX users_inspirer_username_idx ON users (lower(username)) WHERE is_inspirer;

-- The inspirer sampling pool (docs/inspirers.md): every eligible inspirer (is_inspirer, not disabled) holds
-- one rank, and the ranks are exactly 1..N. A uniform sample is then "pick distinct uniform ranks in 1..N and
-- fetch them through the unique index", whose cost depends on the sample size, never on N.
-- The triggers below keep the pool equal to the eligible users whatever path changes a user (CLI, a future
-- account deletion, SQL by hand): joining adds rank N+1, leaving moves rank N into the hole.
CREATE TABLE inspirers (
  user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  rank integer NOT NULL CHECK (rank > 0),
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE UNIQUE INDEX inspirers_rank_key ON inspirers (rank);

-- Ranks are handed out and moved under a lock that orders pool writers among themselves (readers are not
-- blocked); operator actions are rare, so the serialisation costs nothing in practice.
CREATE FUNCTION inspirers_join(member uuid) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  LOCK TABLE inspirers IN SHARE ROW EXCLUSIVE MODE;
  INSERT INTO inspirers (user_id, rank)
  SELECT member, coalesce(max(rank), 0) + 1 FROM inspirers
  ON CONFLICT (user_id) DO NOTHING;
END
$$;

CREATE FUNCTION inspirers_leave(member uuid) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  hole integer;
  last integer;
BEGIN
  LOCK TABLE inspirers IN SHARE ROW EXCLUSIVE MODE;
  DELETE FROM inspirers WHERE user_id = member RETURNING rank INTO hole;
  IF hole IS NULL THEN
    RETURN;
  END IF;
  SELECT max(rank) INTO last FROM inspirers;
  IF last > hole THEN
    UPDATE inspirers SET rank = hole WHERE rank = last;
  END IF;
END
$$;

CREATE FUNCTION inspirers_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM inspirers_leave(OLD.id);
    RETURN OLD;
  END IF;
  IF NEW.is_inspirer AND NEW.disabled_at IS NULL THEN
    PERFORM inspirers_join(NEW.id);
  ELSE
    PERFORM inspirers_leave(NEW.id);
  END IF;
  RETURN NEW;
END
$$;

-- Only rows whose eligibility changes fire: a registration (never an inspirer) or a profile update costs nothing.
CREATE TRIGGER users_inspirers_insert AFTER INSERT ON users FOR EACH ROW
  WHEN (NEW.is_inspirer AND NEW.disabled_at IS NULL)
  EXECUTE FUNCTION inspirers_sync();

CREATE TRIGGER users_inspirers_update AFTER UPDATE OF is_inspirer, disabled_at ON users FOR EACH ROW
  WHEN ((OLD.is_inspirer AND OLD.disabled_at IS NULL) IS DISTINCT FROM (NEW.is_inspirer AND NEW.disabled_at IS NULL))
  EXECUTE FUNCTION inspirers_sync();

-- BEFORE, so the hole is filled before the foreign key's cascade would delete the row and leave it open.
CREATE TRIGGER users_inspirers_delete BEFORE DELETE ON users FOR EACH ROW
  WHEN (OLD.is_inspirer AND OLD.disabled_at IS NULL)
  EXECUTE FUNCTION inspirers_sync();

-- Users marked inspirer before this migration join the pool in a fixed order.
INSERT INTO inspirers (user_id, rank)
SELECT id, row_number() OVER (ORDER BY id) FROM users WHERE is_inspirer;
