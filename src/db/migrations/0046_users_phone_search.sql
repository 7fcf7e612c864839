-- Staff find a user by mobile number, exactly or by its start (the console's search). A number may be on several
-- accounts (only a verified one is unique, migration 0043), so the key is the number, a space and the id: one
-- row each, in a stable order for keyset pages. A space sorts before every digit, so `+821012345678 %` is the
-- number exactly and `+8210%` every number that begins so. text_pattern_ops as the other search keys (0038):
-- LIKE 'prefix%' is a range of it under any collation. Not a partial index: the planner estimates an expression
-- only from the statistics of a whole index, and without them guesses a prefix matches a few rows and sorts
-- every match rather than walking the index for one page.
CREATE INDEX users_phone_prefix_idx ON users ((phone || ' ' || id::text) text_pattern_ops);
