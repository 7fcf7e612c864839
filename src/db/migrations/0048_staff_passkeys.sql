-- A staff member's second factor is a passkey or an authenticator app (TOTP), chosen at enrollment; a sign-in
-- asks for that one. Members enrolled before the choice existed have TOTP.
ALTER TABLE staff ADD COLUMN second_factor text CHECK (second_factor IN ('totp', 'passkey'));
UPDATE staff SET second_factor = 'totp' WHERE enrolled_at IS NOT NULL;

-- The member's WebAuthn user handle, made when a passkey enrollment starts: "staff:" and 32 random bytes.
-- The relying party is the users' one (the same origin), and an authenticator keeps one credential per RP
-- and handle: the users' handles are 32 bytes (webauthn_user_handles), so a staff handle is never one of
-- theirs and a person who is both keeps both passkeys.
ALTER TABLE staff ADD COLUMN webauthn_handle bytea UNIQUE;

-- Staff passkeys, apart from the users' (staff are not users): what an assertion is checked against.
CREATE TABLE staff_passkeys (
  id uuid PRIMARY KEY,
  staff_id uuid NOT NULL REFERENCES staff (id) ON DELETE CASCADE,
  credential_id bytea NOT NULL UNIQUE,
  public_key bytea NOT NULL,
  -- The authenticator's signature counter (0 for those that keep none); one that goes back is refused.
  sign_count bigint NOT NULL DEFAULT 0 CHECK (sign_count >= 0),
  transports text[] NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz
);

CREATE INDEX staff_passkeys_staff ON staff_passkeys (staff_id);

-- The challenges of staff ceremonies: the SHA-256 only, used up by the DELETE that reads them, five minutes
-- (against the console's clock). An enrollment's is bound to its member; a sign-in's names nobody.
CREATE TABLE staff_passkey_challenges (
  id uuid PRIMARY KEY,
  purpose text NOT NULL CHECK (purpose IN ('enrollment', 'sign_in')),
  staff_id uuid REFERENCES staff (id) ON DELETE CASCADE,
  challenge_hash bytea NOT NULL,
  expires_at timestamptz NOT NULL
);

CREATE INDEX staff_passkey_challenges_expires_at ON staff_passkey_challenges (expires_at);
CREATE INDEX staff_passkey_challenges_staff ON staff_passkey_challenges (staff_id) WHERE staff_id IS NOT NULL;
