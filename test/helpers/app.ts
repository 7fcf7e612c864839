import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect } from 'vitest';
import { type AppDeps, type AppParts, buildAppWithParts } from '../../src/app.js';
import { type Config, loadConfig } from '../../src/config.js';
import { TEST_SECRETS_KEY } from './config.js';
import { type Backend, createTestDatabase, type TestDatabase } from './database.js';
import { checkResponsesAgainstSchemas, type ResponseMismatch } from './response-check.js';

/**
 * The service's config for tests: silent logs, a cheap argon2 (the real cost everywhere else) and rate limits
 * off, because suites hammer endpoints from one address (races, fuzzing). The rate-limit suite turns them on.
 * A fixed SECRETS_KEY, so the second factor works (a suite passes `SECRETS_KEY: ''` to go without).
 * REDIS_URL is never taken from the environment here: a suite that wants Redis passes it.
 */
export function testConfig(env: Record<string, string> = {}, dataDir?: string): Config {
  return loadConfig({
    LOG_LEVEL: 'silent',
    ARGON2_MEMORY_KIB: '1024',
    ARGON2_TIME_COST: '1',
    RATE_LIMIT_ENABLED: 'false',
    SECRETS_KEY: TEST_SECRETS_KEY,
    // No webhook poller ticking under a suite that counts statements: a webhook suite turns it on.
    WEBHOOK_POLL_INTERVAL: '0',
    ...(dataDir ? { DATA_DIR: dataDir } : {}),
    ...env,
  });
}

/** The app and its parts (`ctx.mailer`, `ctx.dataExports`, `ctx.imageRenderer`, …). */
export interface TestApp extends AppParts {
  app: FastifyInstance;
  /** 200 responses that did not match their route's declared schema (see response-check.ts). */
  responseMismatches: ResponseMismatch[];
  database: TestDatabase;
  config: Config;
  dataDir: string;
}

/** `deps` adds to the app's dependencies (e.g. a `logStream` to read what the app logs). */
export async function createTestApp(
  backend: Backend,
  env: Record<string, string> = {},
  deps: Omit<AppDeps, 'database'> = {},
): Promise<TestApp> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'accounts-test-'));
  const database = await createTestDatabase(backend);
  const config = testConfig(env, dataDir);
  const { app, parts } = await buildAppWithParts(config, { ...deps, database: database.handle });
  const responseMismatches = checkResponsesAgainstSchemas(app);
  await app.ready();
  // The start-up passes of the periodic jobs (sweeps, prunes) finish before a test runs, so what a test counts
  // (statements, connections, rows) is its own.
  await parts.backgroundIdle();
  return { app, responseMismatches, database, config, dataDir, ...parts };
}

export async function closeTestApp(testApp: TestApp): Promise<void> {
  await testApp.app.close();
  await testApp.database.drop();
  await rm(testApp.dataDir, { recursive: true, force: true });
}

/**
 * Builds one app for the enclosing describe block and closes it after. Use inside
 * `describe.each(backends)(...)`; read `ctx.app` in tests (it is set once beforeAll has run).
 */
export function useTestApp(backend: Backend, env: Record<string, string> = {}): TestApp {
  const ctx = {} as TestApp;
  beforeAll(async () => {
    Object.assign(ctx, await createTestApp(backend, env));
  });
  afterAll(async () => {
    if (ctx.app) await closeTestApp(ctx);
    // Every 200 any test of the block received was checked against its route's declared schema.
    expect(ctx.responseMismatches ?? []).toEqual([]);
  });
  return ctx;
}
