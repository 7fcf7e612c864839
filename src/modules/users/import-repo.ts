import { sql } from 'kysely';
import type { Executor } from '../../db/transaction.js';
import { iso } from '../../lib/time.js';
import { accountEvent } from '../account-events/outbox.js';

/** One user row of an import, with every normalised column the register path writes (skeleton included). */
export interface ImportedUserRow {
  id: string;
  email: string;
  username: string;
  username_skeleton: string;
  slug: string;
  gender: number;
  password_hash: string;
  created_at: Date;
}

/** A user holding one of the names an import batch asked for (compared lower-cased; the skeleton as is). */
export interface NameHolder {
  id: string;
  email: string;
  username: string;
  slug: string;
  username_skeleton: string | null;
}

/** The SQL of `accounts user import` (src/modules/users/import-service.ts). */
export class UserImportRepo {
  constructor(private readonly db: Executor) {}

  with(trx: Executor): UserImportRepo {
    return new UserImportRepo(trx);
  }

  /**
   * One multi-row INSERT of a batch. A row that would break any unique index (the lower() indexes of email,
   * username and slug, the username skeleton) is skipped, whether the holder is an older user or an earlier
   * row of the same statement: the ids that come back are the rows written.
   */
  async insertNew(rows: readonly ImportedUserRow[]): Promise<Set<string>> {
    if (rows.length === 0) return new Set();
    const inserted = await this.db
      .insertInto('users')
      .values(rows.map((row) => ({ ...row })))
      .onConflict((conflict) => conflict.doNothing())
      .returning('id')
      .execute();
    return new Set(inserted.map((row) => row.id));
  }

  /**
   * The `user.created` events (method `import`) of the rows a batch wrote, in one INSERT on the batch's
   * transaction: the other services learn of imported accounts as of signed-up ones.
   */
  async recordCreated(rows: readonly ImportedUserRow[]): Promise<void> {
    if (rows.length === 0) return;
    const events = rows.map((row) =>
      accountEvent('user.created', row.id, {
        id: row.id,
        email: row.email,
        username: row.username,
        slug: row.slug,
        created_at: iso(row.created_at),
        method: 'import',
        consents: [],
      }),
    );
    await this.db
      .insertInto('account_events')
      .values(
        events.map((event) => ({ id: event.id, type: event.type, user_id: event.userId, data: event.data })),
      )
      .execute();
  }

  /**
   * Every user holding one of these emails, usernames (or their look-alikes) or slugs: one statement, each
   * condition on its unique index (a bitmap OR of index scans).
   */
  async holdersOf(names: {
    emails: string[];
    usernames: string[];
    skeletons: string[];
    slugs: string[];
  }): Promise<NameHolder[]> {
    const lower = (values: string[]) => [...new Set(values.map((value) => value.toLowerCase()))];
    if (names.emails.length + names.usernames.length + names.skeletons.length + names.slugs.length === 0) {
      return [];
    }
    return this.db
      .selectFrom('users')
      .select(['id', 'email', 'username', 'slug', 'username_skeleton'])
      .where((eb) =>
        eb.or([
          eb(sql`lower(email)`, 'in', lower(names.emails)),
          eb(sql`lower(username)`, 'in', lower(names.usernames)),
          eb('username_skeleton', 'in', [...new Set(names.skeletons)]),
          eb(sql`lower(slug)`, 'in', lower(names.slugs)),
        ]),
      )
      .execute();
  }
}
