import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { type DatabaseHandle, openDatabase } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import { newId } from '../../src/lib/ids.js';
import { testConfig } from '../helpers/app.js';
import { bearer, registerUser, unique } from '../helpers/factories.js';
import { expectError, expectOk, expectValidationError, postForm } from '../helpers/http.js';
import { parseExposition } from '../helpers/metrics.js';
import { createdPost, feedPage } from '../helpers/posts.js';
import { seedUsers } from '../helpers/promotions.js';
import { checkResponsesAgainstSchemas, type ResponseMismatch } from '../helpers/response-check.js';
import {
  POSTGRES_BINARIES_MISSING,
  postgresBinariesInstalled,
  StreamingPair,
} from '../helpers/streaming-replica.js';

describe.runIf(!postgresBinariesInstalled && process.env.CI === 'true')('read replicas (CI)', () => {
  it('needs the PostgreSQL server binaries in CI', () => {
    throw new Error(POSTGRES_BINARIES_MISSING);
  });
});

interface ReplicaApp {
  app: FastifyInstance;
  handle: DatabaseHandle;
  dataDir: string;
  mismatches: ResponseMismatch[];
}

/** The app on the pair's primary, reading from its standby. */
async function replicaApp(pair: StreamingPair, maxLagMs: number): Promise<ReplicaApp> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'accounts-test-'));
  const config = testConfig(
    {
      DATABASE_URL: pair.primaryUrl,
      DATABASE_REPLICA_URLS: pair.standbyUrl,
      REPLICA_MAX_LAG_MS: String(maxLagMs),
    },
    dataDir,
  );
  const handle = await openDatabase({
    url: pair.primaryUrl,
    embeddedDir: '',
    replicaUrls: config.replicas.urls,
    replicaMaxLagMs: config.replicas.maxLagMs,
  });
  const app = await buildApp(config, { database: handle });
  const mismatches = checkResponsesAgainstSchemas(app);
  await app.ready();
  return { app, handle, dataDir, mismatches };
}

async function closeReplicaApp(ctx: ReplicaApp | undefined): Promise<void> {
  if (!ctx) return;
  await ctx.app.close();
  await ctx.handle.close();
  await rm(ctx.dataDir, { recursive: true, force: true });
  expect(ctx.mismatches).toEqual([]);
}

/** The standby's state as /metrics shows it: the one `db_replica_state` sample at 1. */
async function replicaState(app: FastifyInstance): Promise<string | undefined> {
  const samples = parseExposition((await app.inject({ method: 'GET', url: '/metrics' })).body);
  return samples.find((sample) => sample.name === 'db_replica_state' && sample.value === 1)?.labels.state;
}

/** Polls /metrics (bounded) until the background check reports `state`. */
async function untilState(app: FastifyInstance, state: string): Promise<void> {
  for (let attempt = 0; attempt < 150; attempt++) {
    if ((await replicaState(app)) === state) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the replica never reported ${state} (last: ${await replicaState(app)})`);
}

const feedIds = async (app: FastifyInstance, token?: string) =>
  (await feedPage(app, { limit: 100 }, token)).posts.map((post) => post.id);

/** What a post's page reads: the post itself. */
type OnePost = { post: { id: string } };

const singlePost = (app: FastifyInstance, id: string, token?: string) =>
  app.inject({ method: 'GET', url: `/v1/post/single/${id}/raw`, headers: token ? bearer(token) : {} });

describe.skipIf(!postgresBinariesInstalled)('read replicas on a real streaming standby', () => {
  let pair: StreamingPair;
  let ctx: ReplicaApp;
  /** Transactions the standby rolled back when the suite began: a write sent there would add one. */
  let rollbacksBefore: number;

  const standbyRollbacks = async () =>
    Number(
      (
        await pair.query<{ n: string }>(
          pair.standbyUrl,
          "SELECT xact_rollback AS n FROM pg_stat_database WHERE datname = 'postgres'",
        )
      )[0]?.n,
    );

  beforeAll(async () => {
    pair = await StreamingPair.start();
    const migrator = await openDatabase({ url: pair.primaryUrl, embeddedDir: '' });
    await migrate(migrator);
    await migrator.close();
    await pair.caughtUp();
    rollbacksBefore = await standbyRollbacks();
    ctx = await replicaApp(pair, 60_000);
  }, 180_000);

  afterAll(async () => {
    await closeReplicaApp(ctx);
    await pair?.stop();
  }, 60_000);

  it('serves the feed, single posts, banners, inspirers and validate from the standby; a writer reads the primary', async () => {
    const { app } = ctx;
    const writer = await registerUser(app);
    const reader = await registerUser(app);
    const before = await createdPost(app, writer.token, 'replicated');
    await ctx.handle.db
      .insertInto('banners')
      .values({ id: newId(), title: 'replicated', image_url: 'https://cdn.example.com/a.jpg', position: 1 })
      .execute();
    await pair.caughtUp();
    expect(await replicaState(app)).toBe('up');

    // From here the standby stops replaying: what is written now exists on the primary only.
    await pair.query(pair.standbyUrl, 'SELECT pg_wal_replay_pause()');
    const fresh = await createdPost(app, writer.token, 'primary only');
    await ctx.handle.db
      .insertInto('banners')
      .values({ id: newId(), title: 'primary only', image_url: 'https://cdn.example.com/b.jpg', position: 2 })
      .execute();
    await seedUsers(ctx.handle.db, 3, true);
    const late = await registerUser(app);

    // Anonymous and signed-in readers who wrote nothing read the standby.
    for (const token of [undefined, reader.token]) {
      const ids = await feedIds(app, token);
      expect(ids).toContain(before.id);
      expect(ids).not.toContain(fresh.id);
      expect(expectOk<OnePost>(await singlePost(app, before.id, token)).post.id).toBe(before.id);
      expectError(await singlePost(app, fresh.id, token), 404, 'NotFoundHttpException', 'Not Found');
    }
    const banners = expectOk<{ banners: { title: string }[] }>(
      await app.inject({ method: 'GET', url: '/v1/promotions/banners' }),
    ).banners;
    expect(banners.map((banner) => banner.title)).toEqual(['replicated']);
    const inspirers = () => app.inject({ method: 'GET', url: '/v1/promotions/inspirers' });
    expect(expectOk<{ inspirers: unknown[] }>(await inspirers()).inspirers).toEqual([]);
    // The availability check is advisory: the standby does not know `late` yet (the primary's unique
    // index would still refuse the email at sign-up).
    expectOk(await postForm(app, '/v1/validate/email', { email: late.email }));

    // The author's own reads go to the primary: the new post is in their feed and opens.
    expect(await feedIds(app, writer.token)).toContain(fresh.id);
    expect(expectOk<OnePost>(await singlePost(app, fresh.id, writer.token)).post.id).toBe(fresh.id);

    await pair.query(pair.standbyUrl, 'SELECT pg_wal_replay_resume()');
    await pair.caughtUp();
    expect(await feedIds(app)).toContain(fresh.id);
    expect(expectOk<{ inspirers: unknown[] }>(await inspirers()).inspirers).toHaveLength(3);
    expectValidationError(await postForm(app, '/v1/validate/email', { email: late.email }), {
      email: ['The email has already been taken.'],
    });
    // Every write above went to the primary: the read-only standby refused none.
    expect(await standbyRollbacks()).toBe(rollbacksBefore);
  });

  it('falls back to the primary when the standby stops, without a failed request, and returns to it', async () => {
    const { app } = ctx;
    const writer = await registerUser(app, { username: `gone${unique()}` });
    await pair.stopStandby();
    try {
      // Before the check notices, a read that loses its connection is answered by the primary.
      for (let i = 0; i < 5; i++) await feedIds(app);
      await untilState(app, 'down');
      const fresh = await createdPost(app, writer.token, 'while the standby is down');
      for (const token of [undefined, writer.token]) expect(await feedIds(app, token)).toContain(fresh.id);
      expect(expectOk<OnePost>(await singlePost(app, fresh.id)).post.id).toBe(fresh.id);
      const samples = parseExposition((await app.inject({ method: 'GET', url: '/metrics' })).body);
      expect(samples.find((sample) => sample.name === 'db_replica_up')?.value).toBe(0);
      // A down replica does not make the instance unready.
      expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    } finally {
      await pair.startStandby();
    }
    await untilState(app, 'up');
    await pair.caughtUp();
    expect((await feedIds(app)).length).toBeGreaterThan(0);
  });

  it('skips a standby that lags past REPLICA_MAX_LAG_MS until it catches up', async () => {
    const strict = await replicaApp(pair, 300);
    try {
      const writer = await registerUser(strict.app);
      await pair.caughtUp();
      await untilState(strict.app, 'up');
      await pair.query(pair.standbyUrl, 'SELECT pg_wal_replay_pause()');
      const fresh = await createdPost(strict.app, writer.token, 'while the standby lags');
      await untilState(strict.app, 'lagging');
      // Anonymous reads would go to the standby, which lacks the post: the primary answers them.
      expect(await feedIds(strict.app)).toContain(fresh.id);
      expect(expectOk<OnePost>(await singlePost(strict.app, fresh.id)).post.id).toBe(fresh.id);
      const samples = parseExposition((await strict.app.inject({ method: 'GET', url: '/metrics' })).body);
      const lag = samples.find((sample) => sample.name === 'db_replica_lag_seconds')?.value ?? 0;
      expect(lag).toBeGreaterThan(0.3);
      await pair.query(pair.standbyUrl, 'SELECT pg_wal_replay_resume()');
      await untilState(strict.app, 'up');
    } finally {
      await pair.query(pair.standbyUrl, 'SELECT pg_wal_replay_resume()');
      await closeReplicaApp(strict);
    }
  });
});
