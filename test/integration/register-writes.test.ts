import { type Kysely, sql } from 'kysely';
import { describe, expect, it, vi } from 'vitest';
import type { RegisterInput, SignUp } from '../../src/account/sign-up/service.js';
import type { Database } from '../../src/db/schema.js';
import { ValidationError } from '../../src/errors.js';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { registerUser, registrationForm, unique } from '../helpers/factories.js';
import { expectError, expectOk, postForm } from '../helpers/http.js';
import { buildTestServices } from '../helpers/services.js';

const COMMIT_FAILED = [500, 'InternalServerError', 'Failed to commit transaction.', []] as const;

async function count(
  db: Kysely<Database>,
  table: 'users' | 'api_tokens' | 'one_time_tokens' | 'mail_outbox',
): Promise<number> {
  const result = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(table)}`.execute(db);
  return result.rows[0]?.n ?? -1;
}

/** Makes every insert into api_tokens fail (a non-unique constraint error) until `restore` runs. */
async function breakTokenInserts(db: Kysely<Database>): Promise<() => Promise<void>> {
  await sql`ALTER TABLE api_tokens ADD CONSTRAINT test_refuse_tokens CHECK (false) NOT VALID`.execute(db);
  return async () => {
    await sql`ALTER TABLE api_tokens DROP CONSTRAINT test_refuse_tokens`.execute(db);
  };
}

describe.each(backends)('%s: a write transaction that fails', (backend) => {
  const ctx = useTestApp(backend);

  it('register answers the seed’s 500 envelope and leaves no user behind', async () => {
    const db = ctx.database.handle.db;
    const body = registrationForm();
    const users = await count(db, 'users');
    const restore = await breakTokenInserts(db);
    try {
      expectError(await postForm(ctx.app, '/v1/auth/register', body), ...COMMIT_FAILED);
      expect(await count(db, 'users')).toBe(users);
    } finally {
      await restore();
    }
    // Nothing half-written blocks the same sign-up afterwards.
    expectOk(await postForm(ctx.app, '/v1/auth/register', body));
  });

  it('register writes all four rows or none: a mail that cannot be written leaves no account, token or link', async () => {
    const db = ctx.database.handle.db;
    const tables = ['users', 'api_tokens', 'one_time_tokens', 'mail_outbox'] as const;
    const before = await Promise.all(tables.map((table) => count(db, table)));
    await sql`ALTER TABLE mail_outbox ADD CONSTRAINT test_refuse_mail CHECK (false) NOT VALID`.execute(db);
    try {
      expectError(await postForm(ctx.app, '/v1/auth/register', registrationForm()), ...COMMIT_FAILED);
      expect(await Promise.all(tables.map((table) => count(db, table)))).toEqual(before);
    } finally {
      await sql`ALTER TABLE mail_outbox DROP CONSTRAINT test_refuse_mail`.execute(db);
    }
  });

  it('login answers the same 500 envelope when its token cannot be written', async () => {
    const db = ctx.database.handle.db;
    const user = await registerUser(ctx.app);
    const tokens = await count(db, 'api_tokens');
    const restore = await breakTokenInserts(db);
    try {
      const res = await postForm(ctx.app, '/v1/auth/login/email', {
        email: user.email,
        password: user.password,
      });
      expectError(res, ...COMMIT_FAILED);
      expect(await count(db, 'api_tokens')).toBe(tokens);
    } finally {
      await restore();
    }
  });
});

describe.each(backends)('%s: SignUp.register against the unique indexes', (backend) => {
  const ctx = useTestApp(backend);

  function service(): SignUp {
    return buildTestServices(ctx).signUp;
  }

  function input(overrides: Partial<RegisterInput> = {}): RegisterInput {
    const id = unique();
    return { type: 'email', email: `svc${id}@example.com`, username: `svc${id}`, gender: 0, ...overrides };
  }

  async function failure(promise: Promise<unknown>): Promise<unknown> {
    const error = await promise.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).failures;
  }

  const client = { userAgent: 'tests', ip: '127.0.0.1' };

  // The rules normally catch these first; these calls skip the rules, as the loser of a race does.
  it('turns a unique violation at insert into the 422 on the field its index guards', async () => {
    const auth = service();
    const first = input({ slug: `first-${unique()}` });
    await auth.register(first, client);
    expect(await failure(auth.register(input({ email: first.email.toUpperCase() }), client))).toEqual({
      email: [{ rule: 'unique' }],
    });
    expect(await failure(auth.register(input({ username: first.username.toUpperCase() }), client))).toEqual({
      username: [{ rule: 'unique' }],
    });
    expect(await failure(auth.register(input({ slug: first.slug?.toUpperCase() }), client))).toEqual({
      slug: [{ rule: 'unique' }],
    });
  });

  it('derives the slug again when a derived slug loses a race', async () => {
    const auth = service();
    const taken = (await registerUser(ctx.app, { slug: `raced-${unique()}` })).slug;
    const fresh = `fresh-${unique()}`;
    const derive = vi.spyOn(auth, 'slugCandidates').mockReturnValueOnce([taken]).mockReturnValueOnce([fresh]);
    const signedIn = await auth.register(input(), client);
    expect(signedIn.user.slug).toBe(fresh);
    expect(derive).toHaveBeenCalledTimes(2);
  });

  it('gives up after three lost races with the slug 422', async () => {
    const auth = service();
    const taken = (await registerUser(ctx.app, { slug: `always-${unique()}` })).slug;
    const derive = vi.spyOn(auth, 'slugCandidates').mockReturnValue([taken]);
    expect(await failure(auth.register(input(), client))).toEqual({ slug: [{ rule: 'unique' }] });
    expect(derive).toHaveBeenCalledTimes(3);
  });

  it('never retries a slug the client chose', async () => {
    const auth = service();
    const taken = (await registerUser(ctx.app, { slug: `chosen-${unique()}` })).slug;
    const derive = vi.spyOn(auth, 'slugCandidates');
    expect(await failure(auth.register(input({ slug: taken }), client))).toEqual({
      slug: [{ rule: 'unique' }],
    });
    expect(derive).not.toHaveBeenCalled();
  });

  it('derives the next free candidate when the stem is taken', async () => {
    const auth = service();
    const stem = `stem${unique()}`;
    await registerUser(ctx.app, { slug: stem });
    // As a provider sign-up reads it before its transaction…
    const slug = await auth.firstFreeOf(auth.slugCandidates(`${stem}@example.com`));
    expect(slug).toMatch(new RegExp(`^${stem}-[a-z0-9]{4}$`));
    // …and as an email sign-up picks it in its one statement: the same answer.
    const signedIn = await auth.register(input({ email: `${stem.toUpperCase()}@example.com` }), client);
    expect(signedIn.user.slug).toMatch(new RegExp(`^${stem}-[a-z0-9]{4}$`));
  });

  it('gives concurrent sign-ups of one local part distinct slugs, the stem to one of them', async () => {
    const stem = `race${unique()}`;
    const answers = await Promise.all(
      [1, 2, 3, 4, 5].map((n) =>
        postForm(ctx.app, '/v1/auth/register', registrationForm({ email: `${stem}@mail${n}.example` })),
      ),
    );
    const slugs = answers.map((answer) => expectOk<{ user: { slug: string } }>(answer).user.slug);
    expect(new Set(slugs).size).toBe(5);
    expect(slugs).toContain(stem);
    for (const slug of slugs) expect(slug).toMatch(new RegExp(`^${stem}(-[a-z0-9]{4}|-[a-z0-9]{6})?$`));
  });

  it('takes the first free candidate in order, and the last when the others are taken', async () => {
    const auth = service();
    const [a, b, c] = [1, 2, 3].map((n) => `order${n}-${unique()}`);
    await registerUser(ctx.app, { slug: a as string });
    vi.spyOn(auth, 'slugCandidates').mockReturnValueOnce([a as string, b as string, c as string]);
    expect((await auth.register(input(), client)).user.slug).toBe(b);
    vi.spyOn(auth, 'slugCandidates').mockReturnValueOnce([a as string, b as string, c as string]);
    expect((await auth.register(input(), client)).user.slug).toBe(c);
  });
});
