-- What the account knows of its person's age and identity (docs/identity.md): the birth date (declared at
-- sign-up, or from a verified identity, which replaces a declared one), when a carrier verification last
-- confirmed the person (본인인증), and, for a child under 14 at sign-up, the state of the legal guardian's
-- consent (PIPA art. 22-2): 'pending' until a guardian answers, 'granted' after; NULL when none is needed.
-- On the users row, so the one statement of an authenticated request reads them with the account.
ALTER TABLE users ADD COLUMN birth_date date;
ALTER TABLE users ADD COLUMN identity_verified_at timestamptz;
ALTER TABLE users ADD COLUMN guardian_consent text CHECK (guardian_consent IN ('pending', 'granted'));
