import { sql } from 'kysely';
import { Precompiled } from '../../db/precompiled.js';
import type { Executor } from '../../db/transaction.js';
import type { Column } from '../../db/users-indexes.js';

/** Who holds `value` in `column`: the column's lower() unique index, and for a username the skeleton index. */
export function takenQuery(db: Executor, column: Column, value: string, skeleton: string) {
  return db
    .selectFrom('users')
    .select('id')
    .where((eb) => {
      const same = eb(sql`lower(${sql.ref(column)})`, '=', sql`lower(${value})`);
      return column === 'username' ? eb.or([same, eb('username_skeleton', '=', skeleton)]) : same;
    });
}

/** `taken` without an exception, per column, compiled once (db/precompiled.ts); email and slug ignore the skeleton. */
export const TAKEN: Record<Column, Precompiled<{ id: string }>> = {
  email: new Precompiled(1, (db: Executor, value: string) => takenQuery(db, 'email', value, '')),
  slug: new Precompiled(1, (db: Executor, value: string) => takenQuery(db, 'slug', value, '')),
  username: new Precompiled(2, (db: Executor, value: string, skeleton: string) =>
    takenQuery(db, 'username', value, skeleton),
  ),
};
