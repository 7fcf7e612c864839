-- What a sign-in waiting for its second factor proved first, so that the sign-in its code completes is
-- logged like any other (security_events): `method` is the first factor (`email`, a provider's name, or
-- `password_reset`), `known_device` whether that request presented a token of the account. A challenge made
-- before this migration is logged as an email sign-in from an unknown device; it lives five minutes.
ALTER TABLE second_factor_challenges
  ADD COLUMN method text NOT NULL DEFAULT 'email',
  ADD COLUMN known_device boolean NOT NULL DEFAULT false;
