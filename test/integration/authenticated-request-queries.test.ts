import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAppWithParts } from '../../src/app.js';
import { openDatabase } from '../../src/db/client.js';
import type { Executor } from '../../src/db/transaction.js';
import { ConsentsRepo } from '../../src/modules/consents/repo.js';
import { ConsentsService } from '../../src/modules/consents/service.js';
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

  it('user/get issues exactly one statement: the token, its owner, providers and pending consents', async () => {
    const user = await registerUser(ctx.app);
    await ctx.mailer.idle();
    // The first use of a token records it (at most once a minute): that request writes once more.
    await userGet(user.token);
    const { pending, statements } = await userGet(user.token);
    expect(pending).toEqual([]);
    expect(statements).toHaveLength(1);
    for (const table of ['"api_tokens"', 'provider_accounts', 'consent_documents', 'consent_records']) {
      expect(statements[0]).toContain(table);
    }
  });

  it('names a version published since in one more statement, once, then in one again', async () => {
    const user = await registerUser(ctx.app);
    await ctx.mailer.idle();
    await userGet(user.token);
    await publishTerms(ctx.database.handle.db, 2);
    const first = await userGet(user.token);
    const expected = [{ key: 'terms', version: 2, title: 'Terms of Service (2)', url: '/legal/terms/2/en' }];
    expect(first.pending).toEqual(expected);
    // The token's statement, then the new version's title and link, which this instance had not seen.
    expect(first.statements).toHaveLength(2);
    expect(first.statements[1]).toContain('consent_document_versions');
    const again = await userGet(user.token);
    expect(again.pending).toEqual(expected);
    expect(again.statements).toHaveLength(1);
  });
});

/**
 * Two instances of one PostgreSQL database: a version published through either is asked for by both at
 * once. No instance keeps the current versions: each request reads them in its one statement, and only a
 * version's (never changing) title and link are kept in memory.
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

  it('asks for a version published on one instance on the other at once, and forgets it once agreed', async () => {
    const user = await registerUser(first.app);
    expect(await pendingOn(first.app, user.token)).toEqual([]);
    expect(await pendingOn(second.app, user.token)).toEqual([]);
    await publishTerms(first.database.handle.db, 3);
    const expected = [{ key: 'terms', version: 3, title: 'Terms of Service (3)', url: '/legal/terms/3/en' }];
    expect(await pendingOn(second.app, user.token)).toEqual(expected);
    expect(await pendingOn(first.app, user.token)).toEqual(expected);
    expectOk(await postForm(second.app, '/v1/user/consents/update', { terms: 'on' }, bearer(user.token)));
    expect(await pendingOn(first.app, user.token)).toEqual([]);
    expect(await pendingOn(second.app, user.token)).toEqual([]);
  });
});
