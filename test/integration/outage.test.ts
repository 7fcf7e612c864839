import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { type DatabaseHandle, openDatabase } from '../../src/db/client.js';
import { testConfig, useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, registerUser, unique } from '../helpers/factories.js';
import { expectError, expectOk, expectValidationError, postForm } from '../helpers/http.js';

const UNAVAILABLE = [503, 'ServiceUnavailableHttpException', 'Service Unavailable', []] as const;
const INTERNAL = [500, 'InternalServerError', 'Internal Server Error', []] as const;

describe('a database that cannot be reached', () => {
  let database: DatabaseHandle;
  let app: FastifyInstance;

  beforeAll(async () => {
    // Nothing listens on port 1: every connection attempt is refused at once.
    database = await openDatabase({
      url: 'postgres://postgres@127.0.0.1:1/accounts',
      embeddedDir: '',
      poolMax: 2,
    });
    app = await buildApp(testConfig(), { database });
    await app.ready();
  });

  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  it('answers 503 where a request needs the database', async () => {
    expectError(await postForm(app, '/v1/validate/email', { email: 'a@b.co' }), ...UNAVAILABLE);
    expectError(
      await postForm(app, '/v1/auth/login/email', { email: 'a@b.co', password: 'Whatever-123' }),
      ...UNAVAILABLE,
    );
    expectError(
      await app.inject({ method: 'GET', url: '/v1/user/get', headers: bearer('some-token') }),
      ...UNAVAILABLE,
    );
  });

  it('still validates what needs no database', async () => {
    expectValidationError(await postForm(app, '/v1/validate/email', { email: 'not-an-email' }), {
      email: ['The email must be a valid email address.'],
    });
  });

  it('reports not ready, yet alive', async () => {
    expectError(await app.inject({ method: 'GET', url: '/readyz' }), ...UNAVAILABLE);
    expect((await app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({
      meta: { code: 200 },
      data: { status: 'ok' },
    });
  });
});

describe.each(backends)('%s: an unexpected database error', (backend) => {
  const ctx = useTestApp(backend);

  it('is a 500 that shows no SQL or internal detail', async () => {
    const db = ctx.database.handle.db;
    await sql`ALTER TABLE users RENAME COLUMN email TO email_renamed`.execute(db);
    try {
      const res = await postForm(ctx.app, '/v1/validate/email', { email: `x${unique()}@example.com` });
      expectError(res, ...INTERNAL);
      expect(res.body).not.toMatch(/email_renamed|column|users|SELECT/i);
    } finally {
      await sql`ALTER TABLE users RENAME COLUMN email_renamed TO email`.execute(db);
    }
    expectOk(await postForm(ctx.app, '/v1/validate/email', { email: `x${unique()}@example.com` }));
  });
});

describe.each(backends.filter((backend) => backend === 'postgres'))(
  '%s: connections cut by the server',
  (backend) => {
    const ctx = useTestApp(backend);

    it('recovers without a restart once the server drops every connection', async () => {
      const user = await registerUser(ctx.app);
      expectOk(await ctx.app.inject({ method: 'GET', url: '/v1/user/get', headers: bearer(user.token) }));
      const name = new URL(ctx.database.url as string).pathname.slice(1);
      const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await admin.connect();
      try {
        const killed = await admin.query(
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
          [name],
        );
        expect(killed.rowCount).toBeGreaterThan(0);
      } finally {
        await admin.end();
      }
      // Requests may still meet connections that are dying (pg_terminate_backend returns before the backends
      // are gone, and each idle client of the pool may be one): they get the retryable 503, never a 500, and
      // the pool drops each such client, so at most one request per pooled connection fails.
      const poolMax = 10;
      let answer = await ctx.app.inject({ method: 'GET', url: '/v1/user/get', headers: bearer(user.token) });
      for (let attempt = 0; answer.statusCode === 503 && attempt < poolMax; attempt++) {
        expectError(answer, ...UNAVAILABLE);
        answer = await ctx.app.inject({ method: 'GET', url: '/v1/user/get', headers: bearer(user.token) });
      }
      expectOk(answer);
      for (let i = 0; i < 3; i++) {
        expectOk(await ctx.app.inject({ method: 'GET', url: '/v1/user/get', headers: bearer(user.token) }));
      }
      expectOk(await ctx.app.inject({ method: 'GET', url: '/readyz' }));
    });
  },
);
