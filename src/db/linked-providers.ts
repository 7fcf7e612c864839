import { sql } from 'kysely';

/**
 * The names of the user's linked identity providers, in provider order, as a column of any query that has
 * `users` in scope: one scan of the (user_id, provider) primary key of provider_accounts. Here, beside the
 * schema, because queries of several tables read it (the token lookup, the email login's account read).
 */
export const linkedProviderNames = sql<string[]>`(
  SELECT coalesce(array_agg(provider_accounts.provider ORDER BY provider_accounts.provider), '{}')
  FROM provider_accounts WHERE provider_accounts.user_id = users.id)`;
