import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, inject } from 'vitest';
import { type DatabaseHandle, openDatabase } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import { BUILT_TEMPLATE } from '../../src/db/pglite-template.js';
import type { Database } from '../../src/db/schema.js';
import { admin, serverUrl } from './database-template.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's migrated PostgreSQL database that each test database is a copy of ('' without a server). */
    postgresTemplate: string;
  }
}

export type Backend = 'pglite' | 'postgres';

/** PGlite always; PostgreSQL too when DATABASE_URL names a server (required in CI by global-setup). */
export const backends: Backend[] = process.env.DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];

/**
 * The one backend for tests of what the process does whatever its database (signals, drains, ports, image
 * renderer processes): PostgreSQL where the run has it (its databases are the cheaper to make), else PGlite.
 */
export const processBackend: Backend = backends.at(-1) ?? 'pglite';

export interface TestDatabase {
  handle: DatabaseHandle;
  /** The URL of this test's own database (postgres only). */
  url: string | undefined;
  drop(): Promise<void>;
}

/**
 * A fresh, migrated database: an in-memory PGlite, or a new database on the PostgreSQL server. Both are
 * copies of the run's migrated template (PGlite: the build's, db/pglite-template.ts; PostgreSQL: the one
 * global-setup.ts made), so no test file runs initdb or the migrations; `migrate: false` gives an empty
 * database instead, for the migrations' own tests.
 */
export async function createTestDatabase(
  backend: Backend,
  options: { migrate?: boolean } = {},
): Promise<TestDatabase> {
  const migrated = options.migrate !== false;
  if (backend === 'pglite') {
    const handle = await openDatabase({
      url: undefined,
      embeddedDir: 'memory://',
      ...(migrated ? { embeddedTemplate: BUILT_TEMPLATE } : {}),
    });
    return { handle, url: undefined, drop: () => handle.close() };
  }
  const name = `accounts_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const template = inject('postgresTemplate');
  await admin(
    migrated && template ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name}`,
  );
  const url = new URL(serverUrl());
  url.pathname = `/${name}`;
  const handle = await openDatabase({ url: url.toString(), embeddedDir: '', poolMax: 20 });
  if (migrated && !template) await migrate(handle);
  return {
    handle,
    url: url.toString(),
    drop: async () => {
      await handle.close();
      await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

/** A fresh database for the enclosing describe block (migrated unless told otherwise). */
export function useTestDatabase(backend: Backend, options: { migrate?: boolean } = {}) {
  const ctx = {} as { database: TestDatabase; handle: DatabaseHandle; db: Kysely<Database> };
  beforeAll(async () => {
    ctx.database = await createTestDatabase(backend, options);
    ctx.handle = ctx.database.handle;
    ctx.db = ctx.handle.db;
  });
  afterAll(async () => {
    await ctx.database?.drop();
  });
  return ctx;
}
