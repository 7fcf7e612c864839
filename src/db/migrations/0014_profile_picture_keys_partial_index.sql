-- The orphan sweep's index of profile-picture media keys (0007) held an entry for every user, pictureless ones
-- included: GIN indexes a NULL as an entry of its own, so every sign-up without a picture paid a GIN insert
-- for a row no sweep can ever match. Only rows with a picture are indexed now. The sweep's
-- `profile_picture -> 'keys' ?| $keys` is false for a NULL picture, so PostgreSQL proves the predicate and
-- keeps using the index (test/integration/database.test.ts checks the plan).
DROP INDEX users_profile_picture_keys_idx;
CREATE INDEX users_profile_picture_keys_idx ON users USING gin ((profile_picture -> 'keys'))
  WHERE profile_picture IS NOT NULL;
