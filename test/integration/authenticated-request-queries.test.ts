import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildAppWithParts } from '../../src/app.js';
import { openDatabase } from '../../src/db/client.js';
import type { Executor } from '../../src/db/transaction.js';
import { hashApiToken } from '../../src/lib/tokens.js';
import { ConsentsRepo } from '../../src/modules/consents/repo.js';
import { ConsentsService } from '../../src/modules/consents/service.js';
import { TokensRepo } from '../../src/modules/tokens/repo.js';
import { UsersRepo } from '../../src/modules/users/repo.js';
import { closeTestApp, createTestApp, type TestApp, testConfig } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, registerUser } from '../helpers/factories.js';
import { expectOk, postForm } from '../helpers/http.js';
import { useRecordedApp } from '../helpers/query-recorder.js';

type Pending = Array<{ key: string; version: number; title: string; url: string }>;

/** Publishes a new version of a required document, as `accounts consent publish` does. */
function publishTerms(db: Executor, version: number) {
  return new ConsentsService(db, new ConsentsRepo(db)).publish({
    key: 'terms',
    version,
    required: true,
    texts: { en: { title: `Terms of Service (${version})`, url: `/legal/terms/${version}/en` } },
  });
}

/**
 * An authenticated request reads the token's owner, the account's state, its linked providers and the
 * required documents it has yet to agree to in one statement; user/get adds none (docs/performance.md).
 */
describe.each(backends)('%s: the statements of an authenticated request', (backend) => {
  const ctx = useRecordedApp(backend);

  async function userGet(token: string): Promise<{ pending: Pending; statements: string[] }> {
    ctx.recorder.reset();
    const res = await ctx.app.inject({ method: 'GET', url: '/v1/user/get', headers: bearer(token) });
    const data = expectOk<{ user: { pending_consents: Pending } }>(res);
    return { pending: data.user.pending_consents, statements: ctx.recorder.statements.map((s) => s.sql) };
  }

  it('user/get issues exactly one statement: the token, its owner and its providers', async () => {
    const user = await registerUser(ctx.app);
    await ctx.mailer.idle();
    // The first use of a token records it (at most once a minute): that request writes once more. Until
    // the instance listens for a publish, each request reads the documents too; then none does.
    await vi.waitFor(async () => expect((await userGet(user.token)).statements).toHaveLength(1), {
      timeout: 15_000,
    });
    const { pending, statements } = await userGet(user.token);
    // Registered with every required document agreed to, as the sign-up's one statement recorded them.
    expect(pending).toEqual([]);
    expect(statements).toHaveLength(1);
    expect(statements[0]).toContain('"api_tokens"');
    expect(statements[0]).toContain('provider_accounts');
    expect(statements[0]).not.toContain('consent_');
  });

  it('reads the owner as one JSON value that is the same row its columns give', async () => {
    const user = await registerUser(ctx.app);
    const db = ctx.database.handle.db;
    // Every kind of column set: a jsonb, a date, timestamps, an enum, a boolean.
    await sql`UPDATE users SET birth_date = '2000-02-29', identity_verified_at = now() - interval '1 day',
      guardian_consent = 'granted', profile_picture = '{"url": "/p.jpg", "width": 1, "height": 1,
      "thumbnails": {}}', bio = '2026-11-27T00:00:00Z' WHERE id = ${user.id}::uuid`.execute(db);
    const owner = await new TokensRepo(db).findLiveOwner(hashApiToken(user.token));
    const row = await new UsersRepo(db).findById(user.id);
    expect(owner?.user).toEqual(row);
    expect(owner?.user.created_at).toBeInstanceOf(Date);
    expect(owner?.user.identity_verified_at).toBeInstanceOf(Date);
  });

  it('reads the documents once more after a publish, then from memory again', async () => {
    const user = await registerUser(ctx.app);
    await ctx.mailer.idle();
    await vi.waitFor(async () => expect((await userGet(user.token)).statements).toHaveLength(1), {
      timeout: 15_000,
    });
    await publishTerms(ctx.database.handle.db, 2);
    const expected = [{ key: 'terms', version: 2, title: 'Terms of Service (2)', url: '/legal/terms/2/en' }];
    if (backend === 'pglite') {
      // The embedded database tells its process of a NOTIFY before the commit that sent it returns: the
      // next request reads the current documents after the token's statement.
      const first = await userGet(user.token);
      expect(first.pending).toEqual(expected);
      expect(first.statements).toHaveLength(2);
      expect(first.statements[1]).toContain('consent_document_versions');
    } else {
      // A server's NOTIFY arrives on the listening connection beside the commit's answer, soon after.
      await vi.waitFor(async () => expect((await userGet(user.token)).pending).toEqual(expected), {
        timeout: 15_000,
      });
    }
    const again = await userGet(user.token);
    expect(again.pending).toEqual(expected);
    expect(again.statements).toHaveLength(1);
    // Agreeing writes the version onto the account's row: asked no more, still in one statement.
    expectOk(await postForm(ctx.app, '/v1/user/consents/update', { terms: 'on' }, bearer(user.token)));
    const agreed = await userGet(user.token);
    expect(agreed.pending).toEqual([]);
    expect(agreed.statements).toHaveLength(1);
  });
});

/**
 * Two instances of one PostgreSQL database: a version published through either is asked for by both, each
 * told by the database's NOTIFY (or, while its listening connection is down, reading the documents on every
 * request until it is back).
 */
describe.runIf(backends.includes('postgres'))('two instances on one PostgreSQL database', () => {
  let first: TestApp;
  let second: Awaited<ReturnType<typeof buildAppWithParts>>;
  let secondDatabase: Awaited<ReturnType<typeof openDatabase>>;

  beforeAll(async () => {
    first = await createTestApp('postgres');
    secondDatabase = await openDatabase({ url: first.database.url, embeddedDir: '', poolMax: 4 });
    second = await buildAppWithParts(testConfig({}, first.dataDir), { database: secondDatabase });
    await second.app.ready();
  });
  afterAll(async () => {
    await second?.app.close();
    await secondDatabase?.close();
    if (first) await closeTestApp(first);
  });

  const pendingOn = async (app: TestApp['app'], token: string): Promise<Pending> =>
    expectOk<{ user: { pending_consents: Pending } }>(
      await app.inject({ method: 'GET', url: '/v1/user/get', headers: bearer(token) }),
    ).user.pending_consents;
  const terms = (version: number) => [
    { key: 'terms', version, title: `Terms of Service (${version})`, url: `/legal/terms/${version}/en` },
  ];
  /** Until `app` asks for `expected`: a NOTIFY arrives after the publish's commit has returned. */
  const untilAsked = (app: TestApp['app'], token: string, expected: Pending) =>
    vi.waitFor(async () => expect(await pendingOn(app, token)).toEqual(expected), { timeout: 15_000 });

  it('asks for a version published on one instance on the other, and forgets it once agreed', async () => {
    const user = await registerUser(first.app);
    expect(await pendingOn(first.app, user.token)).toEqual([]);
    expect(await pendingOn(second.app, user.token)).toEqual([]);
    await publishTerms(first.database.handle.db, 3);
    await untilAsked(second.app, user.token, terms(3));
    await untilAsked(first.app, user.token, terms(3));
    expectOk(await postForm(second.app, '/v1/user/consents/update', { terms: 'on' }, bearer(user.token)));
    // The agreement is on the account's row, which both read with the token: at once.
    expect(await pendingOn(first.app, user.token)).toEqual([]);
    expect(await pendingOn(second.app, user.token)).toEqual([]);
  });

  it('misses no publish while its listening connection is down', async () => {
    const user = await registerUser(first.app);
    await pendingOn(second.app, user.token);
    // Both instances' LISTEN connections, cut as a failover or a network fault would. On a busy machine an
    // instance's LISTEN may still be on its way (the connection is opened beside the first request): waited for.
    await vi.waitFor(async () => {
      const { rows } = await sql<{ pid: number }>`
        SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'`.execute(
        first.database.handle.db,
      );
      expect(rows.length).toBeGreaterThanOrEqual(2);
    });
    const { rows } = await sql<{ cut: boolean }>`
      SELECT pg_terminate_backend(pid) AS cut FROM pg_stat_activity
      WHERE datname = current_database() AND query LIKE 'LISTEN%'`.execute(first.database.handle.db);
    expect(rows.length).toBeGreaterThanOrEqual(2);
    await publishTerms(first.database.handle.db, 4);
    await untilAsked(second.app, user.token, terms(4));
    await untilAsked(first.app, user.token, terms(4));
    // Listening again: a later publish reaches the other instance once more.
    await vi.waitFor(
      async () => {
        const { rows: listening } = await sql<{ pid: number }>`
          SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'`.execute(
          first.database.handle.db,
        );
        expect(listening.length).toBeGreaterThanOrEqual(2);
      },
      { timeout: 15_000 },
    );
    await publishTerms(first.database.handle.db, 5);
    await untilAsked(second.app, user.token, terms(5));
  });
});
