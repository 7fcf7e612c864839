import { sql } from 'kysely';
import type { UserRow } from '../../db/schema.js';
import type { Executor } from '../../db/transaction.js';
import { newId } from '../../lib/ids.js';
import { iso } from '../../lib/time.js';
import { ambientTraceparent } from '../../lib/tracing.js';
import {
  type AccountEventInsert,
  insertCompletedEventQuery,
  writeAccountEvent,
} from '../../modules/account-events/outbox.js';
import type { AccountEventData, SignUpMethod } from '../../modules/account-events/types.js';
import { type SignUpConsents, signUpConsentsJson } from '../../modules/consents/repo.js';
import { type NewToken, sessionCreated } from '../../modules/tokens/issue.js';
import { publicUserView } from '../../modules/users/view.js';

/** The account events of an email sign-up's one statement: `user.created`, and its token's session. */
export function emailSignUpEvents(
  account: { id: string; email: string; username: string },
  token: NewToken,
): { created: AccountEventInsert; session: AccountEventInsert } {
  return { created: emailSignUpCreated(account), session: sessionCreated(token, 'password') };
}

/**
 * The `user.created` event of an email sign-up's one statement, before the statement has chosen the slug, the
 * time and the consents: the statement adds `slug`, `created_at` and `consents` to its data (sign-up/write.ts).
 */
function emailSignUpCreated(account: { id: string; email: string; username: string }): AccountEventInsert {
  const { id, email, username } = account;
  const partial: Omit<AccountEventData['user.created'], 'slug' | 'created_at' | 'consents'> = {
    id,
    email,
    username,
    method: 'email',
  };
  return {
    id: newId(),
    type: 'user.created',
    userId: id,
    data: JSON.stringify(partial),
    traceparent: ambientTraceparent(),
  };
}

/**
 * Writes `user.created` for `row` on the sign-up's transaction, with the consents it records (chosen in the
 * statement, from the documents its records are written from).
 */
export async function writeUserCreated(
  trx: Executor,
  row: UserRow,
  method: SignUpMethod,
  consents: SignUpConsents,
): Promise<void> {
  const data: Omit<AccountEventData['user.created'], 'consents'> = {
    id: row.id,
    email: row.email,
    username: row.username,
    slug: row.slug,
    created_at: iso(row.created_at),
    method,
  };
  const event = {
    id: newId(),
    type: 'user.created' as const,
    userId: row.id,
    data: JSON.stringify(data),
    traceparent: ambientTraceparent(),
  };
  const completion = sql`jsonb_build_object('consents', ${signUpConsentsJson(consents)})`;
  await insertCompletedEventQuery(trx, event, completion).execute();
}

/** The fields `user.updated` reports: what the user object shows of an account, but its flags and times. */
const UPDATABLE_FIELDS = ['email', 'username', 'slug', 'gender', 'bio', 'profile_picture'] as const;

function publicValues(row: UserRow): Record<(typeof UPDATABLE_FIELDS)[number], unknown> {
  const { username, slug, gender, bio, profile_picture } = publicUserView(row);
  return { email: row.email, username, slug, gender, bio, profile_picture };
}

/**
 * Writes `user.updated` on the change's transaction when any reported field differs between `before` and
 * `after` (the row the change returned): their names, and their new values as the user object shows them
 * (a picture's URLs, never its storage keys). Nothing when nothing reported changed (a password alone).
 */
export async function writeUserUpdated(trx: Executor, before: UserRow, after: UserRow): Promise<void> {
  const old = publicValues(before);
  const now = publicValues(after);
  const changed = UPDATABLE_FIELDS.filter(
    (field) => JSON.stringify(old[field]) !== JSON.stringify(now[field]),
  );
  if (changed.length === 0) return;
  const values = Object.fromEntries(changed.map((field) => [field, now[field]]));
  await writeAccountEvent(trx, 'user.updated', after.id, { id: after.id, changed, values });
}
