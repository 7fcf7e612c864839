-- How many factors opened a session's re-authentication window: 1 (a password, or a linked provider's
-- token) or 2 (with an authenticator or recovery code, or a passkey). A change that adds or removes a way to
-- sign in asks an account with a second factor for a window of 2 (src/account/reauth/policy.ts). A window
-- opened before this column existed counts as 1.
ALTER TABLE api_tokens ADD COLUMN reauth_factors smallint;
