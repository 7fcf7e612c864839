import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/database.js';
import { type RegisteredUser, registerUser, registrationForm } from '../helpers/factories.js';
import { expectValidationError, postForm } from '../helpers/http.js';
import { recipients, startTestSmtp, type TestSmtp } from '../helpers/mail.js';
import { useRecordedApp } from '../helpers/query-recorder.js';

/**
 * On two cores every round trip of a sign-up (its CPU in the service and in PostgreSQL) is taken from argon2
 * (docs/performance.md), so the statements are pinned here: a new one has to be worth its cost.
 */
describe.each(backends)('%s: the statements of an email sign-up', (backend) => {
  const ctx = useRecordedApp(backend);
  const recorder = ctx.recorder;
  let app: FastifyInstance;

  beforeAll(() => {
    app = ctx.app;
  });

  const heads = () => recorder.statements.map(({ sql }) => /^(\w+ (?:into |from )?"?\w+"?)/.exec(sql)?.[1]);

  it('writes four rows in one statement, and nothing else: its unique indexes are the uniqueness check', async () => {
    recorder.reset();
    const user = await registerUser(app);
    await ctx.mailer.idle();
    const statements = recorder.statements.map(({ sql }) => sql);
    expect(heads()).toEqual(['with "api_token"']);
    // One statement (no transaction around five): the token, the verification token and the mail as CTEs of
    // the user's INSERT, which returns the row the answer shows and picks the first free derived slug, one
    // candidate at a time on the lower(slug) index (a scalar subquery: never an anti-join over the table).
    expect(statements[0]).toMatch(
      /unnest\(\$\d+::text\[\]\) with ordinality .*where \(select true from users where lower\(users\.slug\) = lower\(tried\.candidate\) limit 1\) is null/is,
    );
    expect(statements[0]).toMatch(
      /^with "api_token" as \(insert into "api_tokens".*"verification_token" as \(insert into "one_time_tokens".*"verification_mail" as \(insert into "mail_outbox".*\) insert into "users" .* returning \*$/s,
    );
    // The consent records (every required document's current version) are one more CTE, not a round trip.
    expect(statements[0]).toMatch(
      /"consent_records" as \(insert into "consent_records" .* select .* from "consent_documents"/s,
    );
    // The mail is written claimed (attempt 1, due only when the lease runs out): no claim before its send.
    expect(statements[0]).toMatch(
      /"attempts", "next_attempt_at", "status", "transport", "sent_at"\) values .*make_interval/,
    );
    // With the log transport the row is the mail, so its commit delivered it: written sent, never pending.
    const mail = await ctx.database.handle.db
      .selectFrom('mail_outbox')
      .select(['status', 'transport', 'attempts', 'sent_at', 'text'])
      .where('to_address', '=', user.email)
      .executeTakeFirstOrThrow();
    expect(mail).toEqual({
      status: 'sent',
      transport: 'log',
      attempts: 1,
      sent_at: expect.any(Date),
      text: expect.stringContaining('verify-email?token='),
    });
  });

  /** A sign-up made beside an existing account (the holder), its statements recorded from the first. */
  async function signUpBeside(fields: (holder: RegisteredUser) => Record<string, string>) {
    const holder = await registerUser(app);
    recorder.reset();
    const res = await postForm(app, '/v1/auth/register', registrationForm(fields(holder)));
    return { holder, res };
  }

  it('asks about email and username only after the write refused one, and names both when both are taken', async () => {
    const { holder, res } = await signUpBeside((holder) => ({
      email: holder.email.toUpperCase(),
      username: holder.username,
    }));
    expectValidationError(res, {
      email: ['The email has already been taken.'],
      username: ['The username has already been taken.'],
    });
    expect(heads()).toEqual(['with "api_token"', 'select "id"', 'select "id"']);
    // Nothing of the refused sign-up stays behind.
    const accounts = await ctx.database.handle.db
      .selectFrom('users')
      .select('id')
      .where((eb) => eb.fn('lower', ['username']), '=', holder.username.toLowerCase())
      .execute();
    expect(accounts).toEqual([{ id: holder.id }]);
  });

  it('asks about a taken email before the write when another field fails, and names both fields', async () => {
    const { res } = await signUpBeside((holder) => ({ email: holder.email, password: 'short' }));
    expectValidationError(res, {
      email: ['The email has already been taken.'],
      password: ['The password must be at least 8 characters.'],
    });
    expect(heads()).toEqual(['select "id"', 'select "id"']);
  });
});

describe.each(backends)('%s: the sent marks of mails sent together', (backend) => {
  // A transport that hands the mail on (SMTP, to the test's own server) marks each sent after its send.
  let smtp: TestSmtp;
  beforeAll(async () => {
    smtp = await startTestSmtp();
  });
  afterAll(async () => {
    await smtp?.close();
  });
  const ctx = useRecordedApp(backend, () => ({
    MAIL_TRANSPORT: 'smtp',
    SMTP_URL: smtp.url,
    MAIL_FROM: 'Accounts Test <no-reply@accounts.test>',
    MAIL_RETRY_INTERVAL: '24h',
  }));

  it('marks mails sent in the same moment with one statement, each of them sent', async () => {
    const { recorder, database, mailer } = ctx;
    const values = {
      username: 'batch',
      link: 'https://accounts.test/verify-email?token=x',
      validForMs: 60_000,
    };
    const addresses = [1, 2, 3].map((n) => `batch${n}-${Date.now()}@example.com`);
    const queued = [];
    for (const to of addresses) {
      queued.push(await mailer.queueWithin(database.handle.db, to, 'email_verify', 'en', values));
    }
    recorder.reset();
    // Sent in one turn of the event loop, as several requests' mails are under load.
    for (const mail of queued) mailer.sendSoon(mail);
    await mailer.idle();
    expect(recorder.statements.map(({ sql }) => sql.split(' set ')[0])).toEqual(['update "mail_outbox"']);
    const rows = await database.handle.db
      .selectFrom('mail_outbox')
      .select(['status', 'attempts'])
      .where('to_address', 'in', addresses)
      .execute();
    expect(rows).toEqual(addresses.map(() => ({ status: 'sent', attempts: 1 })));
    expect(smtp.mails.flatMap(recipients).sort()).toEqual([...addresses].sort());
  });
});
