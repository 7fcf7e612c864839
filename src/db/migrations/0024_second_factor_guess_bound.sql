-- Guessing the second factor is bounded in total, not per hour (NIST SP 800-63B §5.2.2): `failed_attempts`
-- counts the wrong codes in a row since the last right one (sign-in and settings alike), `last_failed_at`
-- is when the last one came. From the 5th on, the next code waits longer each time; at 100 the authenticator
-- takes no more codes until its owner acts (docs/SECURITY.md, "Second factor").
ALTER TABLE totp_credentials
  ADD COLUMN failed_attempts integer NOT NULL DEFAULT 0,
  ADD COLUMN last_failed_at timestamptz;

-- What a challenge leads to once its code is right: `sign_in` (a session), or `deletion_cancel` (the
-- scheduled deletion taken back, then a session).
ALTER TABLE second_factor_challenges
  ADD COLUMN purpose text NOT NULL DEFAULT 'sign_in';
