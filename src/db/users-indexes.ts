/** The case-insensitively unique columns of `users`, whose names the rules and the 422s use as fields. */
export type Column = 'email' | 'username' | 'slug';

/**
 * The unique index behind each case-insensitive column of `users` (migrations 0001, 0007), for turning a race lost
 * at insert or update into a 422 on the field. Here, beside the schema, because registration (auth) and
 * profile changes (users) both write the table and neither should import the other's repo for it.
 */
const UNIQUE_INDEXES: Record<string, Column> = {
  users_email_lower_key: 'email',
  users_username_lower_key: 'username',
  users_slug_lower_key: 'slug',
  // A look-alike of an existing username is "already taken" too (migration 0007).
  users_username_skeleton_key: 'username',
};

export function fieldOfUsersIndex(constraint: string | undefined): Column | undefined {
  return constraint === undefined ? undefined : UNIQUE_INDEXES[constraint];
}
