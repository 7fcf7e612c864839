-- Posts hidden by staff (the console's moderation, docs/console.md#posts-and-consent-documents): a hidden post
-- leaves the feed and the single post as an author's scheduled deletion does (0017), and comes back when it is
-- shown again. Its own column, apart from author_hidden: a deletion taken back must not show a post that staff
-- hid, nor a post shown again by staff one whose author's deletion is still scheduled.

-- The index swaps below need a moment of exclusive access to posts: bounded, as in 0017.
SET LOCAL lock_timeout = '10s';

-- When and why staff hid the post; both NULL while it is shown. The reason is the access record's too; it is
-- kept here so the next person to look at the post sees it. Nullable columns without a default are a change
-- of the catalogue only (no rewrite of the table).
ALTER TABLE posts ADD COLUMN hidden_at timestamptz;
ALTER TABLE posts ADD COLUMN hidden_reason text CHECK (length(hidden_reason) <= 500);
ALTER TABLE posts ADD CONSTRAINT posts_hidden_check CHECK ((hidden_at IS NULL) = (hidden_reason IS NULL));

-- The feed indexes again, partial on posts neither hidden with their author nor by staff, under the same
-- names: a page stays one descent of one index that never steps over a hidden post. Built before the old
-- ones are dropped, so the feed has an index at every moment.
CREATE INDEX posts_new_shown_idx ON posts (created_at DESC, id DESC) WHERE NOT author_hidden AND hidden_at IS NULL;
CREATE INDEX posts_hot_shown_idx ON posts (hot_score DESC, id DESC) WHERE NOT author_hidden AND hidden_at IS NULL;
DROP INDEX posts_new_idx;
DROP INDEX posts_hot_idx;
ALTER INDEX posts_new_shown_idx RENAME TO posts_new_idx;
ALTER INDEX posts_hot_shown_idx RENAME TO posts_hot_idx;

-- An author's posts newest first, a keyset page at a time (the console), hidden ones included. Its leading
-- column serves what posts_user_id_idx served (an account's removal, the cascade), so it takes its place.
CREATE INDEX posts_user_recent_idx ON posts (user_id, created_at DESC, id DESC);
DROP INDEX posts_user_id_idx;
