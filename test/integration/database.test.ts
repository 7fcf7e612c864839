import { type Kysely, type KyselyPlugin, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { RawSession } from '../../src/db/client.js';
import type { Database } from '../../src/db/schema.js';
import { writeTransaction } from '../../src/db/transaction.js';
import { fieldOfUsersIndex } from '../../src/db/users-indexes.js';
import { CommitFailedError, ServiceUnavailableError, ValidationError } from '../../src/errors.js';
import { newId } from '../../src/lib/ids.js';
import { hashApiToken } from '../../src/lib/tokens.js';
import { TokensRepo } from '../../src/modules/tokens/repo.js';
import { firstFreeSlug } from '../../src/modules/users/new-account.js';
import { UsersRepo } from '../../src/modules/users/repo.js';
import { backends, useTestDatabase } from '../helpers/database.js';
import { unique } from '../helpers/factories.js';

function newUser(overrides: Partial<{ id: string; email: string; username: string; slug: string }> = {}) {
  const id = unique();
  return {
    id: newId(),
    email: `db${id}@example.com`,
    username: `db${id}`,
    slug: `db-${id}`,
    gender: 1,
    ...overrides,
  };
}

describe.each(backends)('%s: writeTransaction', (backend) => {
  const ctx = useTestDatabase(backend);

  it('returns what the work returns and commits it', async () => {
    const user = newUser();
    const id = await writeTransaction(ctx.db, async (trx) => {
      await trx.insertInto('users').values(user).execute();
      return user.id;
    });
    expect(id).toBe(user.id);
    expect(await new UsersRepo(ctx.db).findById(user.id)).toMatchObject({ id: user.id, email: user.email });
  });

  it('rolls everything back when the work throws, and passes a service error through unchanged', async () => {
    const user = newUser();
    const thrown = ValidationError.taken('email');
    const error = await writeTransaction(ctx.db, async (trx) => {
      await trx.insertInto('users').values(user).execute();
      throw thrown;
    }).catch((caught: unknown) => caught);
    expect(error).toBe(thrown);
    expect(await new UsersRepo(ctx.db).findById(user.id)).toBeUndefined();
  });

  it('maps a unique violation to the 422 on the field its index guards', async () => {
    const holder = newUser();
    await ctx.db.insertInto('users').values(holder).execute();
    for (const [field, clash] of [
      ['email', { email: holder.email.toUpperCase() }],
      ['username', { username: holder.username.toUpperCase() }],
      ['slug', { slug: holder.slug.toUpperCase() }],
    ] as const) {
      const error = await writeTransaction(
        ctx.db,
        (trx) => trx.insertInto('users').values(newUser(clash)).execute(),
        fieldOfUsersIndex,
      ).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).failures).toEqual({ [field]: [{ rule: 'unique' }] });
    }
  });

  it('reports a unique violation it cannot attribute as a commit failure', async () => {
    const holder = newUser();
    await ctx.db.insertInto('users').values(holder).execute();
    const error = await writeTransaction(ctx.db, (trx) =>
      trx
        .insertInto('users')
        .values(newUser({ email: holder.email }))
        .execute(),
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CommitFailedError);
    expect((error as CommitFailedError).message).toBe('Failed to commit transaction.');
  });

  it('reports an unreachable database as 503 and anything else as a commit failure, keeping the cause', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const unavailable = await writeTransaction(ctx.db, async () => {
      throw refused;
    }).catch((caught: unknown) => caught);
    expect(unavailable).toBeInstanceOf(ServiceUnavailableError);
    expect((unavailable as Error).cause).toBe(refused);

    const broken = await writeTransaction(ctx.db, (trx) =>
      sql`INSERT INTO users (id, email, username, slug, gender) VALUES (${newId()}, 'a@b.co', 'ab', 'abcd', 7)`.execute(
        trx,
      ),
    ).catch((caught: unknown) => caught);
    expect(broken).toBeInstanceOf(CommitFailedError);
    expect(((broken as Error).cause as { code?: string }).code).toBe('23514');
  });

  it('holds its connection for the whole transaction: another request’s statement never joins it', async () => {
    const inTransaction = newUser();
    const outside = newUser();
    let outsideWrite: Promise<unknown> | undefined;
    const aborted = await writeTransaction(ctx.db, async (trx) => {
      await trx.insertInto('users').values(inTransaction).execute();
      // Issued while the transaction is open; on PGlite's single connection it must wait for it.
      outsideWrite = ctx.db.insertInto('users').values(outside).execute();
      await trx.selectFrom('users').select('id').where('id', '=', inTransaction.id).execute();
      throw new Error('abort the transaction');
    }).catch((caught: unknown) => caught);
    // Anything but a service error becomes the commit failure, its cause kept.
    expect(aborted).toBeInstanceOf(CommitFailedError);
    expect((aborted as Error).cause).toEqual(new Error('abort the transaction'));
    await outsideWrite;
    const repo = new UsersRepo(ctx.db);
    expect(await repo.findById(inTransaction.id)).toBeUndefined();
    expect(await repo.findById(outside.id)).toMatchObject({ id: outside.id, email: outside.email });
  });
});

/** Captures the SQL and parameters of every query a repo runs, so their plans can be inspected. */
function capturing(db: Kysely<Database>) {
  const queries: Array<{ sql: string; parameters: readonly unknown[] }> = [];
  const plugin: KyselyPlugin = {
    transformQuery(args) {
      const compiled = db.getExecutor().compileQuery(args.node, args.queryId);
      queries.push({ sql: compiled.sql, parameters: compiled.parameters });
      return args.node;
    },
    transformResult: async (args) => args.result,
  };
  return { db: db.withPlugin(plugin), queries };
}

describe.each(backends)('%s: every repo query runs on an index', (backend) => {
  const ctx = useTestDatabase(backend);

  it('never plans a sequential scan for the lookups of users and tokens', async () => {
    const { db, queries } = capturing(ctx.db);
    const users = new UsersRepo(db);
    const tokens = new TokensRepo(db);
    await users.findById(newId());
    await users.findByEmail('Kim@Example.com');
    await users.taken('email', 'kim@example.com');
    await users.taken('username', 'kim', newId());
    await users.taken('slug', 'kim-slug');
    await users.freeSlugs(['kim-a', 'kim-b']);
    await tokens.findLiveOwner(hashApiToken('token'));
    await tokens.deleteById(newId(), 'logout');
    // The orphan sweep's lookup, on the partial GIN index of pictures' keys (migration 0014).
    await users.referencedMediaKeys(['media/a.webp', 'media/b.webp']);
    expect(queries).toHaveLength(9);
    await ctx.handle.withSession(async (session) => {
      // With sequential scans priced out, a plan that still holds one has no index to use.
      await session.exec('SET enable_seqscan = off');
      try {
        for (const query of queries) {
          const plan = await session.query<Record<string, unknown>>(`EXPLAIN ${query.sql}`, [
            ...query.parameters,
          ]);
          const text = plan.map((row) => Object.values(row).join('')).join('\n');
          expect(text, query.sql).not.toMatch(/Seq Scan/);
        }
        // The check can fail: a lookup on an unindexed column is still planned as a sequential scan.
        const control = await session.query<Record<string, unknown>>(
          'EXPLAIN SELECT id FROM users WHERE bio = $1',
          ['x'],
        );
        expect(control.map((row) => Object.values(row).join('')).join('\n')).toMatch(/Seq Scan/);
      } finally {
        await session.exec('RESET enable_seqscan');
      }
    });
  });

  it('picks a derived slug by index probes in the generic plan a sign-up runs, on a table of a thousand users', async () => {
    // The sign-up statement is prepared: planned once per connection for candidates of unknown number. Its
    // slug pick, written as NOT EXISTS, became a hash anti-join over a sequential scan of users once the
    // table held a thousand users (docs/performance.md). The users and their statistics are rolled back.
    const plan = async (session: RawSession, pick: string) => {
      await session.exec(`PREPARE pick(text[], text[]) AS ${pick}`);
      try {
        const rows = await session.query<Record<string, unknown>>(
          "EXPLAIN EXECUTE pick('{kim,kim-a1b2,user-c3d4}', '{kim,kim-a1b2,user-c3d4}')",
        );
        return rows.map((row) => Object.values(row).join('')).join('\n');
      } finally {
        await session.exec('DEALLOCATE pick');
      }
    };
    const { sql: pick } = sql`SELECT ${firstFreeSlug(['kim'])} AS slug`.compile(ctx.db);
    const tag = unique();
    await ctx.handle.withSession(async (session) => {
      await session.exec('BEGIN');
      try {
        await session.exec(
          `INSERT INTO users (id, email, username, slug, gender)
           SELECT gen_random_uuid(), 'plan-${tag}-' || n || '@example.com', 'plan${tag}n' || n, 'plan-${tag}-' || n, 0
           FROM generate_series(1, 1000) AS n;
           ANALYZE users;
           SET LOCAL plan_cache_mode = force_generic_plan;`,
        );
        const picked = await plan(session, pick);
        expect(picked).toMatch(/Index Scan using users_slug_lower_(key|prefix_idx)/);
        expect(picked).not.toMatch(/Seq Scan|Anti Join/);
        // The check can fail: the NOT EXISTS form, under the same plan, scans the whole table.
        const antiJoin = await plan(
          session,
          `SELECT coalesce((SELECT candidate FROM unnest($1::text[]) WITH ORDINALITY AS tried(candidate, n)
           WHERE NOT EXISTS (SELECT 1 FROM users WHERE lower(users.slug) = lower(tried.candidate))
           ORDER BY n LIMIT 1), ($2::text[])[1]) AS slug`,
        );
        expect(antiJoin).toMatch(/Seq Scan on users/);
      } finally {
        await session.exec('ROLLBACK');
      }
    });
  });
});
