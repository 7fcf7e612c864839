import { sql } from 'kysely';

/**
 * Whether the user has a second factor on, as a column of any query that has `users` in scope: one probe of
 * totp_credentials' primary key. Here, beside the schema, because the email login's one account read
 * (modules/users) needs it, so that a login without a second factor costs no extra round trip.
 */
export const secondFactorEnabled = sql<boolean>`EXISTS (
  SELECT 1 FROM totp_credentials
  WHERE totp_credentials.user_id = users.id AND totp_credentials.enabled_at IS NOT NULL)`;
