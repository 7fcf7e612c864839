import { PostgresQueryCompiler, sql } from 'kysely';
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

  describe('by name', () => {
    type Pair = { word: { text: string; repeat: string }; next: number; unused: string };
    /** `label`: the constant's column, so that each test's SQL is its own. */
    const named = (label = 'fixed') =>
      Precompiled.named((db: Executor, { word, next }: Pair) =>
        db
          .selectNoFrom((eb) => [
            sql<number>`${next}::int + 1`.as('next'),
            eb.val(word.text).as('word'),
            // One value read twice is one placeholder bound twice.
            sql<string>`${word.repeat}::text || ${word.repeat}::text`.as('twice'),
            eb.val('constant').as(label),
          ])
          .$castTo<{ next: number; word: string; twice: string; fixed: string }>(),
      );

    it('binds each call its own values, read by name from groups, each wherever the builder used it', async () => {
      const query = named();
      const first = { word: { text: 'one', repeat: 'a' }, next: 1, unused: 'never read' };
      expect(await query.execute(database.handle.db, first)).toEqual([
        { next: 2, word: 'one', twice: 'aa', fixed: 'constant' },
      ]);
      expect(
        await query.execute(database.handle.db, { word: { text: 'two', repeat: 'b' }, next: 41, unused: '' }),
      ).toEqual([{ next: 42, word: 'two', twice: 'bb', fixed: 'constant' }]);
      const inside = await database.handle.db
        .transaction()
        .execute((trx) => query.execute(trx, { word: { text: 'three', repeat: 'c' }, next: 2, unused: '' }));
      expect(inside).toEqual([{ next: 3, word: 'three', twice: 'cc', fixed: 'constant' }]);
    });

    it('compiles the same SQL the builder runs with the values themselves, and prepares it', async () => {
      const seen: string[] = [];
      const compiler = new PostgresQueryCompiler();
      const recorded = database.handle.db.withPlugin({
        transformQuery: (args) => {
          seen.push(compiler.compileQuery(args.node, args.queryId).sql);
          return args.node;
        },
        transformResult: async (args) => args.result,
      });
      const query = named(`prepared_${backend}`);
      const inputs = { word: { text: 'x', repeat: 'y' }, next: 0, unused: '' };
      await query.execute(recorded, inputs);
      expect(seen[0]).toMatch(/^select \$1::int \+ 1 as "next", \$2 as "word", \$3::text \|\| \$4::text/);
      expect(database.handle.statements.nameOf(seen[0] as string)).toBeUndefined();
      await query.execute(database.handle.db, inputs);
      expect(database.handle.statements.nameOf(seen[0] as string)).toBeDefined();
    });

    it('refuses a value read but left out of the SQL, a group used as a value, and a name never given', async () => {
      const careless = Precompiled.named((db: Executor, inputs: { a: string; b: string }) =>
        db.selectNoFrom((eb) => [eb.val(inputs.a).as('a'), eb.val(inputs.b === 'x' ? 1 : 2).as('b')]),
      );
      await expect(careless.execute(database.handle.db, { a: 'a', b: 'b' })).rejects.toThrow(
        /does not use value b/,
      );
      const grouped = Precompiled.named((db: Executor, inputs: { a: { json: string } }) =>
        db.selectNoFrom((eb) => [eb.val(inputs.a).as('a')]),
      );
      await expect(grouped.execute(database.handle.db, { a: { json: 'x' } })).rejects.toThrow(
        /group of its inputs as one value/,
      );
      const optional = Precompiled.named((db: Executor, inputs: { a: string; b?: string }) =>
        db.selectNoFrom((eb) => [eb.val(inputs.a).as('a'), eb.val(inputs.b).as('b')]),
      );
      await expect(optional.execute(database.handle.db, { a: 'a' })).rejects.toThrow(
        /reads b, which its first call did not give/,
      );
    });
  });
});
