import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Precompiled } from '../../src/db/precompiled.js';
import type { Executor } from '../../src/db/transaction.js';
import { backends, createTestDatabase, type TestDatabase } from '../helpers/database.js';

describe.each(backends)('%s: a query compiled once', (backend) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(backend);
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('binds each call its own values, in the order the builder used them', async () => {
    const pair = new Precompiled(2, (db: Executor, first: string, second: number) =>
      db
        .selectNoFrom((eb) => [
          sql<string>`${second}::int + 1`.as('next'),
          eb.val(first).as('word'),
          eb.val('constant').as('fixed'),
        ])
        .$castTo<{ next: number; word: string; fixed: string }>(),
    );
    expect(await pair.execute(database.handle.db, 'one', 1)).toEqual([
      { next: 2, word: 'one', fixed: 'constant' },
    ]);
    expect(await pair.execute(database.handle.db, 'two', 41)).toEqual([
      { next: 42, word: 'two', fixed: 'constant' },
    ]);
    // In a transaction too: the executor is the caller's.
    const inside = await database.handle.db.transaction().execute((trx) => pair.execute(trx, 'three', 2));
    expect(inside).toEqual([{ next: 3, word: 'three', fixed: 'constant' }]);
  });

  it('refuses a builder that leaves a value out (it would silently bind nothing)', async () => {
    const careless = new Precompiled(2, (db: Executor, first: string) =>
      db.selectNoFrom((eb) => [eb.val(first).as('word')]),
    );
    await expect(careless.execute(database.handle.db, 'a', 'b')).rejects.toThrow(/does not use value 1/);
  });
});
