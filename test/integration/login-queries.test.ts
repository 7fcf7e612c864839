import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/database.js';
import { type RegisteredUser, registerUser } from '../helpers/factories.js';
import { expectOk, expectValidationError, postForm } from '../helpers/http.js';
import { useRecordedApp } from '../helpers/query-recorder.js';

/**
 * On two cores every round trip's CPU (ours and PostgreSQL's) is taken from argon2, so an email login reads
 * the account once — the `exists` rule hands on what it found, linked providers included — and writes its
 * token in one statement that re-checks the hash and the disabled flag under a share lock (docs/performance.md).
 */
describe.each(backends)('%s: the statements of an email login', (backend) => {
  const ctx = useRecordedApp(backend);
  const recorder = ctx.recorder;
  let app: FastifyInstance;
  let user: RegisteredUser;

  beforeAll(async () => {
    app = ctx.app;
    user = await registerUser(app);
    // The sign-up's verification mail is sent in the background: not part of any login below.
    await ctx.mailer.idle();
  });

  it('reads the account once, writes the token and its event in one statement that re-checks the sign-in, then logs it', async () => {
    recorder.reset();
    const res = await postForm(app, '/v1/auth/login/email', {
      email: user.email.toUpperCase(),
      password: user.password,
    });
    expectOk(res);
    expect(recorder.statements.map((statement) => statement.sql.split(' ')[0]?.toLowerCase())).toEqual([
      'select',
      'with',
      'insert',
    ]);
    const [read, write, logged] = recorder.statements;
    expect(read?.sql).toContain('provider_accounts');
    expect(write?.sql).toMatch(/insert into "api_tokens".*"password_hash" = \$\d+.*for share/s);
    // The session's account event, in the token's statement: written exactly when the token is.
    expect(write?.sql).toMatch(/insert into "account_events".*from "issued"/s);
    // The sign-in's security event, which decides in the same INSERT whether the device is new: no read first.
    expect(logged?.sql).toMatch(/^INSERT INTO security_events .*'new_device'/s);
  });

  it('an unknown email costs one read and writes nothing', async () => {
    recorder.reset();
    const res = await postForm(app, '/v1/auth/login/email', {
      email: 'nobody-here@example.com',
      password: 'whatever-it-is',
    });
    expectValidationError(res, { email: ['The selected email is invalid.'] });
    expect(recorder.count).toBe(1);
  });
});
