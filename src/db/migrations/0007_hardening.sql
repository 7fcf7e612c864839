-- Hardening: look-alike usernames.
-- username_skeleton is the UTS #39 confusable skeleton of the username (src/lib/username-skeleton.ts): two
-- usernames that look the same share it, and the unique index refuses the second. The skeleton needs the
-- Unicode confusables table, which PostgreSQL does not have, so it is computed by the service: the column is
-- nullable here and filled in for existing rows by the TypeScript step that runs after the SQL migrations
-- (backfillUsernameSkeletons in src/db/backfill.ts, run by `accounts migrate` and at start).
ALTER TABLE users ADD COLUMN username_skeleton text;
CREATE UNIQUE INDEX users_username_skeleton_key ON users (username_skeleton);

-- Orphan media sweep: which stored files a row still references, asked for a batch of keys at a
-- time (`profile_picture->'keys' ?| $keys`), on an index rather than a scan of every user.
CREATE INDEX users_profile_picture_keys_idx ON users USING gin ((profile_picture -> 'keys'));
