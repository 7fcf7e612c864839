import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/database.js';
import { registerUser } from '../helpers/factories.js';
import { useRecordedApp } from '../helpers/query-recorder.js';

/**
 * On two cores every round trip of a sign-up (its CPU in the service and in PostgreSQL) is taken from argon2
 * (docs/PERFORMANCE.md), so the statements are pinned here: a new one has to be worth its cost.
 */
describe.each(backends)('%s: the statements of an email sign-up', (backend) => {
  const ctx = useRecordedApp(backend);
  const recorder = ctx.recorder;
  let app: FastifyInstance;

  beforeAll(() => {
    app = ctx.app;
  });

  it('checks email and username, writes four rows in one statement, and marks the mail sent', async () => {
    recorder.reset();
    await registerUser(app);
    await app.mailer.idle();
    const statements = recorder.statements.map(({ sql }) => sql);
    expect(statements.map((sql) => /^(\w+ (?:into |from )?"?\w+"?)/.exec(sql)?.[1])).toEqual([
      'select "id"',
      'select "id"',
      'with "api_token"',
      'update "mail_outbox"',
    ]);
    // One statement (no transaction around five): the token, the verification token and the mail as CTEs of
    // the user's INSERT, which returns the row the answer shows and picks the first free derived slug, one
    // candidate at a time on the lower(slug) index (a scalar subquery: never an anti-join over the table).
    expect(statements[2]).toMatch(
      /unnest\(\$\d+::text\[\]\) with ordinality .*where \(select true from users where lower\(users\.slug\) = lower\(tried\.candidate\) limit 1\) is null/is,
    );
    expect(statements[2]).toMatch(
      /^with "api_token" as \(insert into "api_tokens".*"verification_token" as \(insert into "one_time_tokens".*"verification_mail" as \(insert into "mail_outbox".*\) insert into "users" .* returning \*$/s,
    );
    // The mail is written claimed (attempt 1, due only when the lease runs out): no claim before its send.
    expect(statements[2]).toMatch(/"attempts", "next_attempt_at"\) values .*make_interval/);
    expect(statements[3]).toContain('"status" = $1');
  });
});

describe.each(backends)('%s: the sent marks of mails sent together', (backend) => {
  const ctx = useRecordedApp(backend);

  it('marks mails sent in the same moment with one statement, each of them sent', async () => {
    const { app, recorder, database } = ctx;
    const values = {
      username: 'batch',
      link: 'https://accounts.test/verify-email?token=x',
      validForMs: 60_000,
    };
    const addresses = [1, 2, 3].map((n) => `batch${n}-${Date.now()}@example.com`);
    const queued = [];
    for (const to of addresses) {
      queued.push(await app.mailer.queueWithin(database.handle.db, to, 'email_verify', 'en', values));
    }
    recorder.reset();
    // Sent in one turn of the event loop, as several requests' mails are under load.
    for (const mail of queued) app.mailer.sendSoon(mail);
    await app.mailer.idle();
    expect(recorder.statements.map(({ sql }) => sql.split(' set ')[0])).toEqual(['update "mail_outbox"']);
    const rows = await database.handle.db
      .selectFrom('mail_outbox')
      .select(['status', 'attempts'])
      .where('to_address', 'in', addresses)
      .execute();
    expect(rows).toEqual(addresses.map(() => ({ status: 'sent', attempts: 1 })));
  });
});
