-- When a child's wait for a legal guardian began (docs/identity.md "Children under 14"): the deadline
-- (GUARDIAN_CONSENT_DAYS) and a request's link count from it. NULL for a wait that began with the sign-up,
-- whose start is the account's created_at (the sign-up's one statement writes nothing more); set when a
-- verified identity shows, later, that the account's person is under 14.
ALTER TABLE users ADD COLUMN guardian_pending_since timestamptz;

-- The deadline sweep finds the children still waiting, longest first, on a partial index that stays small.
DROP INDEX users_guardian_pending_idx;
CREATE INDEX users_guardian_pending_idx ON users ((coalesce(guardian_pending_since, created_at)))
  WHERE guardian_consent = 'pending';
