-- A legal guardian's consent for a child under 14 (PIPA art. 22-2; docs/identity.md "Children under 14").
--
-- guardian_requests: each mailed link. The guardian's address is a third party's personal data collected
-- only to ask: it lives on these rows alone, which go with the child's account (ON DELETE CASCADE), so a
-- refusal, the deadline or any erasure of the child destroys it. The link's token is stored as its SHA-256
-- only. `purpose` is 'consent' (the request) or 'withdraw' (the link mailed to a guardian who consented);
-- `used_at` marks a link used up or replaced by a newer request.
CREATE TABLE guardian_requests (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  purpose text NOT NULL CHECK (purpose IN ('consent', 'withdraw')),
  guardian_email text NOT NULL,
  token_hash bytea NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
-- The per-child hourly cap counts a child's recent requests.
CREATE INDEX guardian_requests_user_idx ON guardian_requests (user_id, created_at);

-- guardian_consents: what a guardian answered. `method` says how the guardian was confirmed: the mailed link
-- alone, or a carrier identity verification (then `guardian_ci_hash` is the keyed hash of the guardian's CI,
-- never the CI). `documents` lists the documents and versions the child agreed to, as the guardian saw them.
CREATE TABLE guardian_consents (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  method text NOT NULL CHECK (method IN ('mailed_link', 'identity_verification')),
  guardian_ci_hash bytea,
  agreed boolean NOT NULL,
  documents jsonb NOT NULL,
  answered_at timestamptz NOT NULL DEFAULT now(),
  withdrawn_at timestamptz
);
CREATE INDEX guardian_consents_user_idx ON guardian_consents (user_id, answered_at);

-- The deadline sweep finds the children still waiting, oldest first, on a partial index that stays small.
CREATE INDEX users_guardian_pending_idx ON users (created_at) WHERE guardian_consent = 'pending';
