-- Mobile numbers (E.164) on accounts, and the SMS outbox that carries their codes.
--
-- A number is stored as the user typed it once normalised (`+821012345678`); it signs in only once proved by
-- a code (`phone_verified`). Unverified numbers may repeat across accounts (anyone may type any number); a
-- verified one belongs to one account: the partial unique index decides a race of two verifications.
ALTER TABLE users ADD COLUMN phone text;
ALTER TABLE users ADD COLUMN phone_verified boolean NOT NULL DEFAULT false;
CREATE UNIQUE INDEX users_verified_phone_key ON users (phone) WHERE phone_verified;

-- A code sent to a profile's new number (`verify_phone`), beside the sign-in and sign-up codes. Its address
-- is the number and the account (`+821012345678/<user id>`): two accounts adding one number each hold one.
ALTER TABLE one_time_codes DROP CONSTRAINT one_time_codes_purpose_check;
ALTER TABLE one_time_codes ADD CONSTRAINT one_time_codes_purpose_check
  CHECK (purpose IN ('login', 'register', 'verify_phone'));

-- Text messages to send, written in the transaction of the code they carry: a message exists exactly when
-- its code does. A sender claims a due row (FOR UPDATE SKIP LOCKED) for a lease, sends it, marks it sent; a
-- crash leaves the claim to run out and another pass sends it. The body holds a code: emptied once sent or
-- given up, and never sent after `expires_at` (the code is dead by then).
CREATE TABLE sms_outbox (
  id uuid PRIMARY KEY,
  to_number text NOT NULL,
  kind text NOT NULL,
  body text,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  last_error text,
  -- The gateway's id of the message (SOLAPI's messageId), or `log`.
  sent_by text,
  created_at timestamptz NOT NULL DEFAULT now(),
  sent_at timestamptz
);

CREATE INDEX sms_outbox_due ON sms_outbox (status, next_attempt_at);
CREATE INDEX sms_outbox_to_number ON sms_outbox (to_number);
