import { Readable } from 'node:stream';
import { hash } from '@node-rs/bcrypt';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Executor } from '../../src/db/transaction.js';
import { readImportRecords } from '../../src/modules/users/import-reader.js';
import { UserImportRepo } from '../../src/modules/users/import-repo.js';
import {
  type ImportLineError,
  type ImportSummary,
  UserImportService,
} from '../../src/modules/users/import-service.js';
import { closeTestApp, createTestApp, type TestApp } from '../helpers/app.js';
import { type Backend, backends } from '../helpers/database.js';
import { registerUser } from '../helpers/factories.js';
import { expectError, expectOk, postForm } from '../helpers/http.js';
import {
  generatedFile,
  INVALID_CREDENTIALS,
  insertProbe,
  LINES,
  PASSWORD,
} from '../helpers/user-import-file.js';

/** The big file runs once: on PostgreSQL when there is one (as in CI), else on PGlite (~30 s either way). */
const importBackends: Backend[] = backends.includes('postgres') ? ['postgres'] : ['pglite'];

describe.each(importBackends)('%s: accounts user import of 100,000 users', (backend) => {
  let ctx: TestApp;
  let preexisting: string;
  let hashed: string;
  beforeAll(async () => {
    ctx = await createTestApp(backend);
    preexisting = (await registerUser(ctx.app)).email;
    // A hash as Laravel writes it ($2y$), of the library's bcrypt.
    hashed = `$2y$${(await hash(PASSWORD, 4)).slice(4)}`;
  });
  afterAll(async () => {
    if (ctx) await closeTestApp(ctx);
  });

  async function runImport(dryRun: boolean) {
    const file = generatedFile(hashed, preexisting);
    let consumedLines = 0;
    const errors: ImportLineError[] = [];
    const probe = insertProbe(() => file.produced() - consumedLines);
    const db: Executor = ctx.database.handle.db.withPlugin(probe.plugin);
    const service = new UserImportService(db, new UserImportRepo(db));
    const records = readImportRecords(Readable.from(file.lines()), 'csv');
    async function* counted() {
      for await (const record of records) {
        consumedLines = record.line;
        yield record;
      }
    }
    const summary: ImportSummary = await service.import(counted(), {
      dryRun,
      onErrors: (batch) => errors.push(...batch),
    });
    return { summary, errors, expected: file.expected, inserts: probe.inserts };
  }

  const userCount = async () =>
    Number(
      (await sql<{ n: string }>`SELECT count(*) AS n FROM users`.execute(ctx.database.handle.db)).rows[0]?.n,
    );

  it('a dry run reports exactly the bad lines and writes nothing', { timeout: 600_000 }, async () => {
    const before = await userCount();
    const { summary, errors, expected } = await runImport(true);
    expect(errors).toEqual(expected.first);
    expect(summary).toEqual({
      imported: expected.good,
      alreadyPresent: 0,
      errors: expected.first.length,
      dryRun: true,
    });
    expect(await userCount()).toBe(before);
  });

  it('imports the good lines in batches, streaming, and reports exactly the bad ones', {
    timeout: 600_000,
  }, async () => {
    const { summary, errors, expected, inserts } = await runImport(false);
    expect(expected.first.length).toBe(1000);
    expect(errors).toEqual(expected.first);
    expect(summary).toEqual({ imported: expected.good, alreadyPresent: 0, errors: 1000, dryRun: false });
    expect(await userCount()).toBe(1 + expected.good);
    // One multi-row INSERT per batch of 1000 lines (bad lines are not sent)...
    expect(inserts).toHaveLength(LINES / 1000);
    for (const insert of inserts) expect(insert.rows).toBeLessThanOrEqual(1000);
    // Every line that passed the rules went to the database, taken names included (its indexes find them).
    const refusedByRules = expected.first.filter((e) => !e.reasons[0]?.includes('already been taken'));
    expect(inserts.reduce((sum, insert) => sum + insert.rows, 0)).toBe(LINES - refusedByRules.length);
    // ...and the reader was never a batch ahead of the inserts (only the streams' small buffers): memory holds
    // one batch, not the file, however long the file is.
    for (const insert of inserts) expect(insert.readAhead).toBeLessThan(1000);
  });

  it('a re-run imports nothing new and reports every good line as already present', {
    timeout: 600_000,
  }, async () => {
    const before = await userCount();
    const { summary, errors, expected } = await runImport(false);
    expect(errors).toEqual(expected.again);
    expect(summary).toEqual({ imported: 0, alreadyPresent: expected.good, errors: 1000, dryRun: false });
    expect(await userCount()).toBe(before);
  });

  it('stores the columns register stores: skeleton, slug, gender, created_at, the hash as given', async () => {
    const row = await ctx.database.handle.db
      .selectFrom('users')
      .selectAll()
      .where(sql`lower(email)`, '=', 'member3@old.example.com')
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      email: 'member3@old.example.com',
      username: 'member3',
      username_skeleton: expect.any(String),
      slug: 'member-3',
      gender: 1,
      password_hash: hashed,
      email_verified: false,
      disabled_at: null,
    });
    expect(new Date(row.created_at).toISOString()).toBe('2019-03-04T05:06:07.000Z');
    const iso = await ctx.database.handle.db
      .selectFrom('users')
      .select('created_at')
      .where(sql`lower(email)`, '=', 'member4@old.example.com')
      .executeTakeFirstOrThrow();
    expect(new Date(iso.created_at).toISOString()).toBe('2020-11-12T04:14:15.123Z');
  });

  it('an imported user signs in with the old password, and then has an argon2id hash', async () => {
    const email = 'member5@old.example.com';
    const storedHash = async () =>
      (
        await sql<{
          password_hash: string;
        }>`SELECT password_hash FROM users WHERE lower(email) = ${email}`.execute(ctx.database.handle.db)
      ).rows[0]?.password_hash;
    expectError(
      await postForm(ctx.app, '/v1/auth/login/email', { email, password: 'not the old one' }),
      ...INVALID_CREDENTIALS,
    );
    expect(await storedHash()).toBe(hashed);
    const data = expectOk<{ user: { username: string; api_token: string } }>(
      await postForm(ctx.app, '/v1/auth/login/email', {
        email: 'MEMBER5@old.example.com',
        password: PASSWORD,
      }),
    );
    expect(data.user.username).toBe('member5');
    expect(await storedHash()).toMatch(/^\$argon2id\$v=19\$m=1024,t=1,p=1\$/);
    // The new hash is of the same password: the next login checks it with argon2.
    expectOk(await postForm(ctx.app, '/v1/auth/login/email', { email, password: PASSWORD }));
    expectError(
      await postForm(ctx.app, '/v1/auth/login/email', { email, password: 'not the old one' }),
      ...INVALID_CREDENTIALS,
    );
  });

  it('two logins at once with the bcrypt password both succeed and leave one argon2id hash', async () => {
    const email = 'member6@old.example.com';
    const logins = await Promise.all([
      postForm(ctx.app, '/v1/auth/login/email', { email, password: PASSWORD }),
      postForm(ctx.app, '/v1/auth/login/email', { email, password: PASSWORD }),
    ]);
    for (const login of logins) expectOk(login);
    const { rows } = await sql<{ password_hash: string }>`
      SELECT password_hash FROM users WHERE lower(email) = ${email}`.execute(ctx.database.handle.db);
    expect(rows[0]?.password_hash).toMatch(/^\$argon2id\$/);
    expectOk(await postForm(ctx.app, '/v1/auth/login/email', { email, password: PASSWORD }));
  });
});
