-- Account deletion with a grace period: user/delete schedules the deletion, the server erases the account
-- once it is due, and the user can take it back until then (docs/api.md#deleting-an-account).

-- Lock waits are bounded: the index swap below needs a moment of exclusive access to posts, and a migration
-- queued behind a long transaction would stall every feed read queued behind it. It fails instead, and the
-- next start (or `accounts migrate`) tries again; nothing of it is applied meanwhile.
SET LOCAL lock_timeout = '10s';

-- Both set while the deletion is scheduled (when it was asked for, when the server erases the account), both
-- NULL otherwise. The row stays meanwhile, so its email, username and slug stay taken.
ALTER TABLE users ADD COLUMN deletion_scheduled_at timestamptz;
ALTER TABLE users ADD COLUMN deletion_due_at timestamptz;
ALTER TABLE users ADD CONSTRAINT users_deletion_schedule_check
  CHECK ((deletion_scheduled_at IS NULL) = (deletion_due_at IS NULL));

-- The sweep's claim of due accounts: only scheduled accounts are in it, so it stays tiny.
CREATE INDEX users_deletion_due_idx ON users (deletion_due_at) WHERE deletion_due_at IS NOT NULL;

-- The posts of an account scheduled for deletion are hidden from the feed and the single post. A flag on the
-- post, set and cleared in the scheduling and cancelling transactions, rather than a look at the author
-- during the feed's walk: the feed indexes leave hidden posts out, so a page is still one descent of one index
-- that never steps over a hidden post, and the hot path gains no join condition. A constant default is a
-- change of the catalogue only (no rewrite of the table).
ALTER TABLE posts ADD COLUMN author_hidden boolean NOT NULL DEFAULT false;

-- The feed indexes again, partial on visible posts, under the same names. Built before the old ones are
-- dropped, so the feed has an index at every moment: the build takes a SHARE lock (reads go on, writes of
-- posts wait for it), the drop an exclusive one for an instant at the end.
CREATE INDEX posts_new_visible_idx ON posts (created_at DESC, id DESC) WHERE NOT author_hidden;
CREATE INDEX posts_hot_visible_idx ON posts (hot_score DESC, id DESC) WHERE NOT author_hidden;
DROP INDEX posts_new_idx;
DROP INDEX posts_hot_idx;
ALTER INDEX posts_new_visible_idx RENAME TO posts_new_idx;
ALTER INDEX posts_hot_visible_idx RENAME TO posts_hot_idx;

-- The mailed link that takes a scheduled deletion back is a one-time token like the others.
ALTER TABLE one_time_tokens DROP CONSTRAINT one_time_tokens_purpose_check;
ALTER TABLE one_time_tokens ADD CONSTRAINT one_time_tokens_purpose_check
  CHECK (purpose IN ('email_verify', 'password_reset', 'deletion_cancel'));

-- An inspirer scheduled for deletion leaves the sampling pool (0005), and joins it again if they cancel.
CREATE OR REPLACE FUNCTION inspirers_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM inspirers_leave(OLD.id);
    RETURN OLD;
  END IF;
  IF NEW.is_inspirer AND NEW.disabled_at IS NULL AND NEW.deletion_scheduled_at IS NULL THEN
    PERFORM inspirers_join(NEW.id);
  ELSE
    PERFORM inspirers_leave(NEW.id);
  END IF;
  RETURN NEW;
END
$$;

DROP TRIGGER users_inspirers_insert ON users;
DROP TRIGGER users_inspirers_update ON users;
DROP TRIGGER users_inspirers_delete ON users;

CREATE TRIGGER users_inspirers_insert AFTER INSERT ON users FOR EACH ROW
  WHEN (NEW.is_inspirer AND NEW.disabled_at IS NULL AND NEW.deletion_scheduled_at IS NULL)
  EXECUTE FUNCTION inspirers_sync();

CREATE TRIGGER users_inspirers_update AFTER UPDATE OF is_inspirer, disabled_at, deletion_scheduled_at ON users
  FOR EACH ROW
  WHEN ((OLD.is_inspirer AND OLD.disabled_at IS NULL AND OLD.deletion_scheduled_at IS NULL)
    IS DISTINCT FROM (NEW.is_inspirer AND NEW.disabled_at IS NULL AND NEW.deletion_scheduled_at IS NULL))
  EXECUTE FUNCTION inspirers_sync();

CREATE TRIGGER users_inspirers_delete BEFORE DELETE ON users FOR EACH ROW
  WHEN (OLD.is_inspirer AND OLD.disabled_at IS NULL AND OLD.deletion_scheduled_at IS NULL)
  EXECUTE FUNCTION inspirers_sync();
