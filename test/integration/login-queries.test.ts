import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { testConfig } from '../helpers/app.js';
import { backends, createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { type RegisteredUser, registerUser } from '../helpers/factories.js';
import { expectOk, postForm } from '../helpers/http.js';
import { QueryRecorder } from '../helpers/query-recorder.js';

/**
 * On two cores every round trip's CPU (ours and PostgreSQL's) is taken from argon2, so an email login reads
 * the account once — the `exists` rule hands on what it found, linked providers included — and writes its
 * token in one statement that re-checks the hash and the disabled flag under a share lock (docs/PERFORMANCE.md).
 */
describe.each(backends)('%s: the statements of an email login', (backend) => {
  const recorder = new QueryRecorder();
  let database: TestDatabase;
  let app: FastifyInstance;
  let dataDir: string;
  let user: RegisteredUser;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'accounts-test-'));
    database = await createTestDatabase(backend);
    const counted = { ...database.handle, db: database.handle.db.withPlugin(recorder) };
    app = await buildApp(testConfig({}, dataDir), { database: counted });
    await app.ready();
    user = await registerUser(app);
    // The sign-up's verification mail is sent in the background: not part of any login below.
    await app.mailer.idle();
  });

  afterAll(async () => {
    await app?.close();
    await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('reads the account once and writes the token in one statement that re-checks the sign-in', async () => {
    recorder.reset();
    const res = await postForm(app, '/v1/auth/login/email', {
      email: user.email.toUpperCase(),
      password: user.password,
    });
    expectOk(res);
    expect(recorder.statements.map((statement) => statement.sql.split(' ')[0])).toEqual(['select', 'insert']);
    const [read, write] = recorder.statements;
    expect(read?.sql).toContain('provider_accounts');
    expect(write?.sql).toMatch(/insert into "api_tokens".*"password_hash" = \$\d+.*for share/s);
  });

  it('an unknown email costs one read and writes nothing', async () => {
    recorder.reset();
    const res = await postForm(app, '/v1/auth/login/email', {
      email: 'nobody-here@example.com',
      password: 'whatever-it-is',
    });
    expect(res.statusCode).toBe(422);
    expect(recorder.count).toBe(1);
  });
});
