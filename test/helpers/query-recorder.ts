import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import {
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  PostgresQueryCompiler,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from 'kysely';
import { afterAll, beforeAll } from 'vitest';
import { type AppParts, buildAppWithParts } from '../../src/app.js';
import { testConfig } from './app.js';
import { type Backend, createTestDatabase, type TestDatabase } from './database.js';

/**
 * Counts every statement the app sends through Kysely and keeps each compiled (to read or EXPLAIN it).
 * Transaction control (BEGIN, COMMIT) does not pass through plugins and is not counted.
 */
export class QueryRecorder implements KyselyPlugin {
  count = 0;
  readonly statements: Array<{ sql: string; parameters: readonly unknown[] }> = [];
  readonly #compiler = new PostgresQueryCompiler();

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    this.count++;
    const compiled = this.#compiler.compileQuery(args.node, args.queryId);
    this.statements.push({ sql: compiled.sql, parameters: compiled.parameters });
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }

  reset(): void {
    this.count = 0;
    this.statements.length = 0;
  }
}

/** The app and its parts (`ctx.mailer`, …). */
export interface RecordedApp extends AppParts {
  recorder: QueryRecorder;
  database: TestDatabase;
  app: FastifyInstance;
}

/**
 * An app on a fresh database of `backend` whose every statement passes through a QueryRecorder, for the
 * enclosing describe block. The fields are set by its beforeAll (register other hooks after calling this).
 * `env`, read in that beforeAll, adds settings (hooks registered before this call have run by then).
 */
export function useRecordedApp(
  backend: Backend,
  env: () => Record<string, string> = () => ({}),
): RecordedApp {
  const ctx = { recorder: new QueryRecorder() } as RecordedApp;
  let dataDir: string | undefined;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'accounts-test-'));
    ctx.database = await createTestDatabase(backend);
    const counted = { ...ctx.database.handle, db: ctx.database.handle.db.withPlugin(ctx.recorder) };
    const { app, parts } = await buildAppWithParts(testConfig(env(), dataDir), { database: counted });
    Object.assign(ctx, parts, { app });
    await ctx.app.ready();
    // The periodic jobs' start-up passes are not the test's statements.
    await ctx.backgroundIdle();
  });
  afterAll(async () => {
    await ctx.app?.close();
    await ctx.database?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });
  return ctx;
}
