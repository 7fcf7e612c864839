import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { backfillUsernameSkeletons } from '../../src/db/backfill.js';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, registerUser, registrationForm, unique } from '../helpers/factories.js';
import { expectOk, expectValidationError, postForm } from '../helpers/http.js';

const TAKEN = { username: ['The username has already been taken.'] };

/** Usernames that look the same as an existing one are taken (UTS #39 skeletons on a unique index). */
describe.each(backends)('%s: look-alike usernames', (backend) => {
  const ctx = useTestApp(backend);

  it.each([
    ['paul', 'pauI'],
    ['rnrn', 'mm'],
    ['ol', '0l'],
  ])('refuses %s-alike %s at validate, register and update', async (original, lookAlike) => {
    const suffix = unique();
    await registerUser(ctx.app, { username: `${original}${suffix}` });
    const name = `${lookAlike}${suffix}`;
    expectValidationError(await postForm(ctx.app, '/v1/validate/username', { username: name }), TAKEN);
    expectValidationError(
      await postForm(ctx.app, '/v1/auth/register', registrationForm({ username: name })),
      TAKEN,
    );
    const other = await registerUser(ctx.app);
    expectValidationError(
      await postForm(ctx.app, '/v1/user/update', { username: name }, bearer(other.token)),
      TAKEN,
    );
  });

  it('still lets a user re-case their own name, and takes a free one', async () => {
    const me = await registerUser(ctx.app, { username: `paul${unique()}` });
    expectOk(
      await postForm(ctx.app, '/v1/user/update', { username: me.username.toUpperCase() }, bearer(me.token)),
    );
    expectOk(await postForm(ctx.app, '/v1/validate/username', { username: `paula${unique()}` }));
  });

  it('refuses the look-alike at insert too, when two sign-ups race past the rule', async () => {
    const suffix = unique();
    const results = await Promise.all(
      [`paul${suffix}`, `pauI${suffix}`, `PAUL${suffix}`].map((username) =>
        postForm(ctx.app, '/v1/auth/register', registrationForm({ username })),
      ),
    );
    expect(results.map((res) => res.statusCode).sort()).toEqual([200, 422, 422]);
    for (const res of results.filter((r) => r.statusCode === 422)) expectValidationError(res, TAKEN);
  });

  it('fills the skeleton of rows written before the column existed, keeping the older of two look-alikes', async () => {
    const suffix = unique();
    const first = await registerUser(ctx.app, { username: `olga${suffix}` });
    const second = await registerUser(ctx.app, { username: `anna${suffix}` });
    const db = ctx.database.handle.db;
    // As before migration 0007: no skeletons, and a look-alike pair registered side by side.
    await sql`UPDATE users SET username_skeleton = NULL WHERE id IN (${first.id}, ${second.id})`.execute(db);
    await sql`UPDATE users SET username = ${`0lga${suffix}`} WHERE id = ${second.id}`.execute(db);
    const result = await ctx.database.handle.withSession((session) => backfillUsernameSkeletons(session));
    expect(result.clashes).toBeGreaterThanOrEqual(1);
    const { rows } = await sql<{ id: string; username_skeleton: string | null }>`
      SELECT id, username_skeleton FROM users WHERE id IN (${first.id}, ${second.id})`.execute(db);
    const filled = rows.filter((row) => row.username_skeleton !== null);
    expect(filled).toHaveLength(1);
    expectValidationError(
      await postForm(ctx.app, '/v1/validate/username', { username: `olga${suffix}` }),
      TAKEN,
    );
  });
});
