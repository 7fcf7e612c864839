-- Posts, their likes and the feed. See docs/feed.md for the keyset and hot-score design.

-- The hot score: log10 of the likes (at least 1) plus the creation time in units of 45,000 s (12.5 h), so a
-- post needs ten times the likes to stay level with one 12.5 hours younger. It depends only on the like count
-- and the creation time, never on the clock, so it is stored and indexed and changes only when likes change.
-- IMMUTABLE is true: the epoch of a timestamptz does not depend on the session's time zone.
CREATE FUNCTION post_hot_score(like_count integer, created_at timestamptz) RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN log(greatest(like_count, 1)::double precision) + extract(epoch FROM created_at)::double precision / 45000;

CREATE TABLE posts (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  text text NOT NULL,
  -- [{url, width, height, thumbnails, keys}]: keys are the storage keys, removed when the post is.
  images jsonb NOT NULL DEFAULT '[]'::jsonb,
  like_count integer NOT NULL DEFAULT 0 CHECK (like_count >= 0),
  -- Millisecond precision: the feed cursor carries created_at, and a JavaScript Date holds milliseconds.
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  updated_at timestamptz(3) NOT NULL DEFAULT now(),
  -- Kept by the database itself, so every writer (the service, a test, a bulk import) agrees with the index.
  hot_score double precision GENERATED ALWAYS AS (post_hot_score(like_count, created_at)) STORED
);

-- Exactly the keyset orders of the feed: a page is one descent of one of these indexes.
CREATE INDEX posts_new_idx ON posts (created_at DESC, id DESC);
CREATE INDEX posts_hot_idx ON posts (hot_score DESC, id DESC);
-- A user's posts (removing them with the account; ON DELETE CASCADE needs it too).
CREATE INDEX posts_user_id_idx ON posts (user_id);

CREATE TABLE post_likes (
  post_id uuid NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  -- One like per (post, user): the primary key is what makes 20 concurrent likes by one user count once.
  PRIMARY KEY (post_id, user_id)
);

-- A user's likes (and the cascade when a user is deleted).
CREATE INDEX post_likes_user_id_idx ON post_likes (user_id, post_id);

-- Secrets the service generates for itself, shared by every instance through the database (zero setup, and
-- still right behind a load balancer). The feed cursor's HMAC key: 244 random bits from two v4 UUIDs, which
-- PostgreSQL draws from its strong random source.
CREATE TABLE service_secrets (
  name text PRIMARY KEY,
  secret bytea NOT NULL
);

INSERT INTO service_secrets (name, secret)
VALUES ('feed_cursor', decode(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex'));
