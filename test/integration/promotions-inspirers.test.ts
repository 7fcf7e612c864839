import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAppWithParts } from '../../src/app.js';
import { InspirersRepo } from '../../src/modules/promotions/repo.js';
import { testConfig, useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { expectOk, expectValidationError, postForm, postJson } from '../helpers/http.js';
import { clearInspirers, queryCounter, seedUsers } from '../helpers/promotions.js';

interface Inspirer {
  id: string;
  [field: string]: unknown;
}

describe.each(backends)('%s: promotions/inspirers', (backend) => {
  const ctx = useTestApp(backend);
  const db = () => ctx.database.handle.db;

  const sample = async (query: string, method: 'GET' | 'POST' = 'GET') =>
    expectOk<{ inspirers: Inspirer[] }>(
      await ctx.app.inject({ method, url: `/v1/promotions/inspirers${query}` }),
    ).inspirers;
  const ids = (inspirers: Inspirer[]) => inspirers.map((inspirer) => inspirer.id);

  it('answers public user views of inspirers only, at most 10 by default, without duplicates', async () => {
    await clearInspirers(db());
    const inspirers = await seedUsers(db(), 15, true);
    await seedUsers(db(), 20, false);
    const got = await sample('');
    expect(got).toHaveLength(10);
    expect(new Set(ids(got)).size).toBe(10);
    for (const id of ids(got)) expect(inspirers).toContain(id);
    expect(Object.keys(got[0] as Inspirer).sort()).toEqual(
      [
        'bio',
        'created_at',
        'gender',
        'id',
        'is_inspirer',
        'profile_picture',
        'slug',
        'updated_at',
        'username',
      ].sort(),
    );
    expect(got[0]?.is_inspirer).toBe(true);
  });

  it('honours limit and returns everyone, once each, when fewer are eligible', async () => {
    await clearInspirers(db());
    const inspirers = await seedUsers(db(), 6, true);
    expect(await sample('?limit=3')).toHaveLength(3);
    const all = await sample('?limit=100');
    expect(ids(all).sort()).toEqual([...inspirers].sort());
    expect(await sample('?limit=1')).toHaveLength(1);
  });

  it('never returns an excluded id, in every array form, and ignores strings that are not ids', async () => {
    await clearInspirers(db());
    const inspirers = await seedUsers(db(), 6, true);
    const [a, b, c, d] = inspirers as [string, string, string, string];
    const rest = inspirers.slice(4).sort();
    for (let round = 0; round < 5; round++) {
      expect(
        ids(await sample(`?exclude[]=${a}&exclude[]=${b}&exclude[]=${c}&exclude[]=${d}&limit=100`)).sort(),
      ).toEqual(rest);
      expect(
        ids(
          await sample(`?exclude[0]=${a}&exclude[1]=${b}&exclude[2]=${c}&exclude[3]=${d.toUpperCase()}`),
        ).sort(),
      ).toEqual(rest);
      const json = expectOk<{ inspirers: Inspirer[] }>(
        await postJson(ctx.app, '/v1/promotions/inspirers', {
          exclude: [a, b, c, d, 'not-an-id', ''],
          limit: 50,
        }),
      );
      expect(ids(json.inspirers).sort()).toEqual(rest);
      const form = expectOk<{ inspirers: Inspirer[] }>(
        await postForm(ctx.app, '/v1/promotions/inspirers', { exclude: [a, b, c, d] }),
      );
      expect(ids(form.inspirers).sort()).toEqual(rest);
    }
    expect(await sample(`?exclude[]=${inspirers.join('&exclude[]=')}`)).toEqual([]);
  });

  it('never returns a disabled inspirer, and returns them again once enabled', async () => {
    await clearInspirers(db());
    const [kept, disabled] = (await seedUsers(db(), 2, true)) as [string, string];
    await db().updateTable('users').set({ disabled_at: new Date() }).where('id', '=', disabled).execute();
    for (let round = 0; round < 5; round++) expect(ids(await sample('?limit=5'))).toEqual([kept]);
    await db().updateTable('users').set({ disabled_at: null }).where('id', '=', disabled).execute();
    expect(ids(await sample('?limit=5')).sort()).toEqual([kept, disabled].sort());
  });

  it('keeps the pool ranks exactly 1..N through joins, leaves and deletions', async () => {
    await clearInspirers(db());
    const users = await seedUsers(db(), 12, true);
    await db()
      .updateTable('users')
      .set({ is_inspirer: false })
      .where('id', 'in', users.slice(0, 3))
      .execute();
    await db().deleteFrom('users').where('id', 'in', users.slice(3, 5)).execute();
    await db()
      .updateTable('users')
      .set({ disabled_at: new Date() })
      .where('id', '=', users[5] as string)
      .execute();
    const pool = await db().selectFrom('inspirers').select(['user_id', 'rank']).orderBy('rank').execute();
    expect(pool.map((row) => row.rank)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(pool.map((row) => row.user_id).sort()).toEqual(users.slice(6).sort());
  });

  it('is uniform: 2,000 draws over 20 eligible inspirers pass a chi-square test at p = 1e-6', async () => {
    await clearInspirers(db());
    const inspirers = await seedUsers(db(), 25, true);
    const excluded = inspirers.slice(0, 5);
    const eligible = inspirers.slice(5);
    const counts = new Map(eligible.map((id) => [id, 0]));
    const query = `?limit=5&exclude[]=${excluded.join('&exclude[]=')}`;
    for (let call = 0; call < 400; call++) {
      for (const id of ids(await sample(query))) counts.set(id, (counts.get(id) ?? Number.NaN) + 1);
    }
    expect([...counts.keys()].sort()).toEqual([...eligible].sort());
    const expected = 2000 / eligible.length;
    const chiSquare = [...counts.values()].reduce((sum, n) => sum + (n - expected) ** 2 / expected, 0);
    // The upper 1e-6 quantile of chi-square with 19 degrees of freedom. Draws within one call are without
    // replacement, which only narrows the spread, so a fair sampler fails less often than once in a million
    // runs; one that favoured even a quarter of the users by half again would score in the hundreds.
    expect(chiSquare).toBeLessThan(63.68);
  });

  it('refuses a non-array exclude and a limit outside 1..100 with 422s', async () => {
    const cases: Array<[string, Record<string, string[]>]> = [
      ['?exclude=abc', { exclude: ['The exclude must be an array.'] }],
      ['?exclude[a]=b', { exclude: ['The exclude must be an array.'] }],
      ['?limit=0', { limit: ['The limit must be at least 1.'] }],
      ['?limit=101', { limit: ['The limit may not be greater than 100.'] }],
      ['?limit=abc', { limit: ['The limit must be an integer.'] }],
      [
        '?limit=2.5&exclude=x',
        { limit: ['The limit must be an integer.'], exclude: ['The exclude must be an array.'] },
      ],
    ];
    for (const [query, errors] of cases) {
      expectValidationError(
        await ctx.app.inject({ method: 'GET', url: `/v1/promotions/inspirers${query}` }),
        errors,
      );
    }
    expectValidationError(await postJson(ctx.app, '/v1/promotions/inspirers', { exclude: 'abc', limit: 0 }), {
      exclude: ['The exclude must be an array.'],
      limit: ['The limit must be at least 1.'],
    });
    const korean = await ctx.app.inject({
      method: 'GET',
      url: '/v1/promotions/inspirers?limit=0',
      headers: { 'accept-language': 'ko' },
    });
    expectValidationError(korean, { limit: ['개수는 1 이상이어야 합니다.'] });
  });
});

describe.each(backends)('%s: promotions/inspirers cost', (backend) => {
  const ctx = useTestApp(backend);
  const counter = queryCounter();
  let counted: Awaited<ReturnType<typeof buildAppWithParts>>['app'];

  beforeAll(async () => {
    const handle = ctx.database.handle;
    const built = await buildAppWithParts(testConfig({}, ctx.dataDir), {
      database: { ...handle, db: handle.db.withPlugin(counter) },
    });
    counted = built.app;
    await counted.ready();
    // Its periodic jobs' start-up passes (sweeps, prunes) query through the counted database too.
    await built.parts.backgroundIdle();
  });
  afterAll(async () => {
    await counted?.close();
  });

  /** Queries one call costs, with 5 exclusions (one of them a real inspirer). */
  async function queriesPerCall(exclude: string): Promise<number> {
    const before = counter.count;
    const res = await counted.inject({
      method: 'GET',
      url: `/v1/promotions/inspirers?limit=10&exclude[]=${exclude}&exclude[]=${[1, 2, 3, 4].map(() => crypto.randomUUID()).join('&exclude[]=')}`,
    });
    expect(expectOk<{ inspirers: unknown[] }>(res).inspirers).toHaveLength(10 - (exclude ? 0 : 0));
    return counter.count - before;
  }

  it('costs the same number of queries at 10 and at 10,000 inspirers, and probes the index per rank', async () => {
    const db = ctx.database.handle.db;
    const first = await seedUsers(db, 11, true);
    const small = [];
    for (let i = 0; i < 5; i++) small.push(await queriesPerCall(first[0] as string));
    await seedUsers(db, 9_989, true);
    await sql`ANALYZE`.execute(db);
    const large = [];
    for (let i = 0; i < 5; i++) large.push(await queriesPerCall(first[0] as string));
    expect(small).toEqual([2, 2, 2, 2, 2]);
    expect(large).toEqual(small);

    // The sampling query at 10,000: index probes for the drawn ranks only, never a scan of either table.
    const ranks = [1, 77, 4_000, 9_999, 10_000];
    const plan = await new InspirersRepo(db)
      .atRanksQuery(ranks, [first[0] as string])
      .explain('json', sql`analyze, buffers`);
    const text = JSON.stringify(plan);
    expect(text).not.toContain('Seq Scan');
    expect(text).toContain('inspirers_rank_key');
    const rowsRead = [...text.matchAll(/"Relation Name":"inspirers"[^}]*?"Actual Rows":(\d+)/g)].map((m) =>
      Number(m[1]),
    );
    expect(rowsRead.length).toBeGreaterThan(0);
    for (const rows of rowsRead) expect(rows).toBeLessThanOrEqual(ranks.length);
  });
});
