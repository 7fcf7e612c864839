-- Until when a session (an API token) may make the re-authenticated changes without a proof: set by
-- `user/reauth` to the moment of the proof plus REAUTH_WINDOW, never moved by use. It lives on the token's
-- row, so every instance sees it and revoking the token ends it; NULL = no window.
ALTER TABLE api_tokens ADD COLUMN reauthenticated_until timestamptz;
