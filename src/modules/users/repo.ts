import { sql } from 'kysely';
import { linkedProviderNames } from '../../db/linked-providers.js';
import { Precompiled } from '../../db/precompiled.js';
import type { ProfilePicture, UserRow, UserWithProviders } from '../../db/schema.js';
import { secondFactorEnabled } from '../../db/second-factor-enabled.js';
import type { Executor } from '../../db/transaction.js';
import type { Column } from '../../db/users-indexes.js';
import { usernameSkeleton } from '../../lib/username-skeleton.js';
import { accountRow, insertAccountQuery, type NewAccount, type NewAccountRow } from './new-account.js';
import { TAKEN, takenQuery } from './taken-query.js';

/** The columns user/update may change. */
export interface UserChanges {
  email?: string;
  username?: string;
  slug?: string;
  gender?: number;
  bio?: string | null;
  password_hash?: string;
  email_verified?: boolean;
}

/**
 * An email login's one read: the account on the lower(email) index, with its linked providers and whether it
 * has a second factor on.
 */
const WITH_PROVIDERS_BY_EMAIL = new Precompiled(1, (db: Executor, email: string) =>
  db
    .selectFrom('users')
    .selectAll('users')
    .select(linkedProviderNames.as('linked_providers'))
    .select(secondFactorEnabled.as('second_factor_enabled'))
    .where(sql`lower(email)`, '=', sql`lower(${email})`),
);

/** A new user (every sign-up): compiled, and prepared on a server, once. */
const INSERT_ACCOUNT = Precompiled.named((db: Executor, row: NewAccountRow) => insertAccountQuery(db, row));

export class UsersRepo {
  constructor(private readonly db: Executor) {}

  with(trx: Executor): UsersRepo {
    return new UsersRepo(trx);
  }

  findById(id: string): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /**
   * What a sign-in must re-read inside its transaction: the hash (did the password change since it was
   * checked?), the disabled flag and a scheduled deletion. Share-locked, so a password change or a disabling that starts now waits
   * for the new token and then revokes (or refuses) it with the others; update-locked for a login that rewrites
   * the hash, so that two such logins queue for the row instead of deadlocking on two share locks that both
   * want to become exclusive.
   */
  signInState(
    id: string,
    lock: 'share' | 'update',
  ): Promise<
    | {
        password_hash: string | null;
        disabled_at: Date | null;
        deletion_due_at: Date | null;
        second_factor_enabled: boolean;
      }
    | undefined
  > {
    const query = this.db
      .selectFrom('users')
      .select(['password_hash', 'disabled_at', 'deletion_due_at'])
      .select(secondFactorEnabled.as('second_factor_enabled'))
      .where('id', '=', id);
    return (lock === 'update' ? query.forUpdate() : query.forShare()).executeTakeFirst();
  }

  /** Replaces the hash of the same password (a stronger argon2 cost): not a profile change, so no updated_at. */
  async replacePasswordHash(id: string, passwordHash: string): Promise<void> {
    await this.db.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', id).execute();
  }

  /** Case-insensitive, on the lower(email) unique index. */
  findByEmail(email: string): Promise<UserRow | undefined> {
    return this.db
      .selectFrom('users')
      .selectAll()
      .where(sql`lower(email)`, '=', sql`lower(${email})`)
      .executeTakeFirst();
  }

  /** The account of this email (case-insensitively) and its linked providers, in one query. */
  async findWithProvidersByEmail(email: string): Promise<UserWithProviders | undefined> {
    const [row] = await WITH_PROVIDERS_BY_EMAIL.execute(this.db, email);
    return row;
  }

  /**
   * Is `value` held by a user other than `exceptUserId`? One probe of the column's lower() unique index; for a
   * username also of the skeleton index, so a look-alike (`pauI` for `paul`) counts as taken.
   */
  async taken(column: Column, value: string, exceptUserId?: string): Promise<boolean> {
    if (exceptUserId === undefined) {
      // Every sign-up form's check (validate/*, register): the SQL compiled once per column.
      const values = column === 'username' ? [value, usernameSkeleton(value)] : [value];
      return (await TAKEN[column].execute(this.db, ...values)).length > 0;
    }
    const row = await takenQuery(this.db, column, value, usernameSkeleton(value))
      .where('id', '<>', exceptUserId)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Which of these slugs are free, in one query (for deriving a slug without a query per candidate). */
  async freeSlugs(candidates: string[]): Promise<string[]> {
    if (candidates.length === 0) return [];
    const lowered = candidates.map((candidate) => candidate.toLowerCase());
    const rows = await this.db
      .selectFrom('users')
      .select(sql<string>`lower(slug)`.as('slug'))
      .where(sql`lower(slug)`, 'in', lowered)
      .execute();
    const used = new Set(rows.map((row) => row.slug));
    return candidates.filter((candidate) => !used.has(candidate.toLowerCase()));
  }

  async insert(user: NewAccount): Promise<UserRow> {
    const [row] = await INSERT_ACCOUNT.execute(this.db, accountRow(user, user.slug));
    if (!row) throw new Error('INSERT … RETURNING returned no row');
    return row;
  }

  /** Changes the given profile fields (and `updated_at`); returns the row as it now is. */
  async update(id: string, changes: UserChanges): Promise<UserRow> {
    return this.db
      .updateTable('users')
      .set({
        ...changes,
        ...(changes.username === undefined ? {} : { username_skeleton: usernameSkeleton(changes.username) }),
        updated_at: sql<Date>`now()`,
      })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /** Which of these media keys a user's profile picture still uses (on the GIN index of its keys). */
  async referencedMediaKeys(keys: readonly string[]): Promise<string[]> {
    if (keys.length === 0) return [];
    const { rows } = await sql<{ key: string }>`
      SELECT k AS key
      FROM users CROSS JOIN LATERAL jsonb_array_elements_text(users.profile_picture -> 'keys') AS k
      WHERE users.profile_picture -> 'keys' ?| ${sql.val([...keys])}::text[]`.execute(this.db);
    const wanted = new Set(keys);
    return rows.map((row) => row.key).filter((key) => wanted.has(key));
  }

  /**
   * Sets the profile picture and returns the one it replaced, in one statement: the row is locked while the
   * old value is read, so two concurrent replacements each get back exactly the picture they replaced.
   */
  async replaceProfilePicture(
    id: string,
    picture: ProfilePicture,
  ): Promise<{ row: UserRow; previous: ProfilePicture | null }> {
    const result = await sql<UserRow & { previous_picture: ProfilePicture | null }>`
      WITH old AS (SELECT id, profile_picture FROM users WHERE id = ${id} FOR UPDATE)
      UPDATE users SET profile_picture = ${JSON.stringify(picture)}::jsonb, updated_at = now()
      FROM old WHERE users.id = old.id
      RETURNING users.*, old.profile_picture AS previous_picture`.execute(this.db);
    const first = result.rows[0];
    if (!first) throw new Error('user row vanished');
    const { previous_picture: previous, ...row } = first;
    return { row, previous };
  }

  /**
   * The user row, locked until the transaction ends (account deletion). Taken first: a like or a device the
   * user is adding right now holds a key-share lock on this row, so the deletion waits for it and then sees
   * it; one that starts later waits for the deletion and finds no user.
   */
  lockForDelete(id: string): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
  }

  /**
   * Schedules the account's deletion `graceDays` from now; the row as it now is, or undefined when it was
   * scheduled already (a second request that raced this one) or is gone. Takes the row lock first, as every
   * deletion step does (lockForDelete). updated_at stays: a cancel restores the account as it was.
   */
  scheduleDeletion(id: string, graceDays: number): Promise<UserRow | undefined> {
    return this.db
      .updateTable('users')
      .set({
        deletion_scheduled_at: sql<Date>`now()`,
        deletion_due_at: sql<Date>`now() + make_interval(days => ${graceDays}::int)`,
      })
      .where('id', '=', id)
      .where('deletion_scheduled_at', 'is', null)
      .returningAll()
      .executeTakeFirst();
  }

  /** Takes a scheduled deletion back; undefined when none was scheduled (or the account is gone). */
  cancelDeletion(id: string): Promise<UserRow | undefined> {
    return this.db
      .updateTable('users')
      .set({ deletion_scheduled_at: null, deletion_due_at: null })
      .where('id', '=', id)
      .where('deletion_scheduled_at', 'is not', null)
      .returningAll()
      .executeTakeFirst();
  }

  /**
   * One account whose grace period is over, locked until the transaction ends, skipping any another
   * transaction holds (another instance's sweep erasing it, or a cancel under way): many instances sweep at
   * once without waiting for each other or erasing one account twice. On the partial users_deletion_due_idx.
   */
  claimDueDeletion(): Promise<UserRow | undefined> {
    return this.db
      .selectFrom('users')
      .selectAll()
      .where('deletion_due_at', '<=', sql<Date>`now()`)
      .orderBy('deletion_due_at')
      .limit(1)
      .forUpdate()
      .skipLocked()
      .executeTakeFirst();
  }

  /** Deletes the row; tokens, devices, provider links, one-time tokens, pushes and likes cascade (FKs). */
  async delete(id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('users').where('id', '=', id).executeTakeFirst();
    return result.numDeletedRows === 1n;
  }

  /** Case-insensitive, on the lower(username) unique index. */
  findByUsername(username: string): Promise<UserRow | undefined> {
    return this.db
      .selectFrom('users')
      .selectAll()
      .where(sql`lower(username)`, '=', sql`lower(${username})`)
      .executeTakeFirst();
  }

  /**
   * Disables (now) or enables the user. Disabling an already disabled user keeps the first date. The
   * inspirer pool follows through the migration's trigger.
   */
  async setDisabled(id: string, disabled: boolean): Promise<UserRow | undefined> {
    return this.db
      .updateTable('users')
      .set({
        disabled_at: disabled ? sql<Date>`coalesce(disabled_at, now())` : null,
        updated_at: sql<Date>`now()`,
      })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
  }

  /** Marks or unmarks the user as an inspirer (the sampling pool follows through the trigger). */
  async setInspirer(id: string, inspirer: boolean): Promise<UserRow | undefined> {
    return this.db
      .updateTable('users')
      .set({ is_inspirer: inspirer, updated_at: sql<Date>`now()` })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
  }

  /**
   * Every user marked inspirer, disabled ones included, by username (on the partial inspirer index); with
   * `limit`, the page after the username `after` (usernames are unique case-insensitively: the key).
   */
  listInspirers(page?: { after: string | undefined; limit: number }): Promise<UserRow[]> {
    let query = this.db.selectFrom('users').selectAll().where('is_inspirer', '=', true);
    if (page?.after !== undefined) query = query.where(sql`lower(username)`, '>', page.after.toLowerCase());
    query = query.orderBy(sql`lower(username)`);
    return (page === undefined ? query : query.limit(page.limit)).execute();
  }
}
