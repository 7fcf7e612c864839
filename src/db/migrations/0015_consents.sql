-- What each user agreed to, item by item (PIPA: required and optional items apart, nothing pre-ticked), and
-- the documents they agreed to. Depends on 0001 (users).

-- A document users agree to: its current version and whether sign-up requires it. Keys are free text.
CREATE TABLE consent_documents (
  key text PRIMARY KEY CHECK (key ~ '^[a-z0-9_]+$' AND length(key) <= 64),
  current_version integer NOT NULL CHECK (current_version >= 1),
  required boolean NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Every published version, kept: what a user agreed to is the version their record names. `texts` holds the
-- title and URL per language: {"ko": {"title": …, "url": …}, "en": {…}}.
CREATE TABLE consent_document_versions (
  key text NOT NULL REFERENCES consent_documents (key),
  version integer NOT NULL CHECK (version >= 1),
  texts jsonb NOT NULL,
  published_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (key, version)
);

-- Append-only: every agreement and every withdrawal is a row; history is never rewritten. A user's rows go
-- with the user (account deletion). `client_address` is the request's address (none for `expiry`, the
-- withdrawal the reminder command makes when a marketing consent is not re-confirmed).
CREATE TABLE consent_records (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  key text NOT NULL,
  version integer NOT NULL,
  agreed boolean NOT NULL,
  channel text NOT NULL CHECK (channel IN ('register', 'update', 'web', 'expiry')),
  client_address text,
  recorded_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (key, version) REFERENCES consent_document_versions (key, version)
);

-- A user's latest state per document is the first row of (user_id, key) in this index.
CREATE INDEX consent_records_user_key_idx ON consent_records (user_id, key, id DESC);
-- The agreements that must be re-confirmed every two years (Network Act art. 50(8)), oldest first.
CREATE INDEX consent_records_reconfirm_idx ON consent_records (recorded_at, id)
  WHERE agreed AND (key LIKE 'marketing\_%' OR key = 'night_push');

-- One reminder per agreement to re-confirm (the primary key makes a second run send nothing twice).
-- `resolved_at` is set once the reminder is settled: the user answered (a newer record) or, 30 days on,
-- the agreement was withdrawn. Reminders are no record of consent, so they may change.
CREATE TABLE consent_reminders (
  record_id bigint PRIMARY KEY REFERENCES consent_records (id) ON DELETE CASCADE,
  reminded_at timestamptz NOT NULL DEFAULT now(),
  resolved_at timestamptz
);

CREATE INDEX consent_reminders_open_idx ON consent_reminders (reminded_at) WHERE resolved_at IS NULL;

-- A fresh install works with no set-up: the two required documents and four optional ones, version 1, with
-- pages under the service's own address (an operator publishes real ones with `accounts consent publish`).
INSERT INTO consent_documents (key, current_version, required) VALUES
  ('terms', 1, true),
  ('privacy', 1, true),
  ('marketing_email', 1, false),
  ('marketing_push', 1, false),
  ('marketing_sms', 1, false),
  ('night_push', 1, false);

INSERT INTO consent_document_versions (key, version, texts) VALUES
  ('terms', 1, '{"ko": {"title": "서비스 이용약관", "url": "/legal/terms/1/ko"},
                 "en": {"title": "Terms of Service", "url": "/legal/terms/1/en"}}'),
  ('privacy', 1, '{"ko": {"title": "개인정보 수집·이용 동의", "url": "/legal/privacy/1/ko"},
                   "en": {"title": "Collection and use of personal information", "url": "/legal/privacy/1/en"}}'),
  ('marketing_email', 1, '{"ko": {"title": "광고성 정보 이메일 수신 동의", "url": "/legal/marketing_email/1/ko"},
                           "en": {"title": "Marketing by email", "url": "/legal/marketing_email/1/en"}}'),
  ('marketing_push', 1, '{"ko": {"title": "광고성 정보 앱 푸시 수신 동의", "url": "/legal/marketing_push/1/ko"},
                          "en": {"title": "Marketing by push notification", "url": "/legal/marketing_push/1/en"}}'),
  ('marketing_sms', 1, '{"ko": {"title": "광고성 정보 문자(SMS) 수신 동의", "url": "/legal/marketing_sms/1/ko"},
                         "en": {"title": "Marketing by text message (SMS)", "url": "/legal/marketing_sms/1/en"}}'),
  ('night_push', 1, '{"ko": {"title": "야간(21시~08시) 광고성 푸시 수신 동의", "url": "/legal/night_push/1/ko"},
                      "en": {"title": "Marketing push notifications at night (21:00–08:00)", "url": "/legal/night_push/1/en"}}');
