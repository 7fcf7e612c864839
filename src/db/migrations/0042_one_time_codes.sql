-- One-time codes and the links that carry the same proof: sign-in and sign-up by a code mailed to an address
-- (channel `email`; a phone channel's SMS codes fit beside them). A code is never stored: only the SHA-256 of
-- a random salt followed by the code; the link's token only as its SHA-256. One live code per address: a new
-- one replaces it. A code dies after 10 minutes, after its fifth wrong guess, or on its first use.
CREATE TABLE one_time_codes (
  id uuid PRIMARY KEY,
  channel text NOT NULL CHECK (channel IN ('email', 'phone')),
  -- The lower-cased email, or an E.164 number.
  address text NOT NULL,
  purpose text NOT NULL CHECK (purpose IN ('login', 'register')),
  code_salt bytea NOT NULL,
  code_hash bytea NOT NULL,
  token_hash bytea NOT NULL UNIQUE,
  failures smallint NOT NULL DEFAULT 0,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX one_time_codes_address ON one_time_codes (channel, address);
-- The sweep of dead codes (with their addresses) made by every new code.
CREATE INDEX one_time_codes_expires_at ON one_time_codes (expires_at);
