import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { type DatabaseHandle, openDatabase } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import type { Database } from '../../src/db/schema.js';

export type Backend = 'pglite' | 'postgres';

/** PGlite always; PostgreSQL too when DATABASE_URL names a server (required in CI by global-setup). */
export const backends: Backend[] = process.env.DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];

export interface TestDatabase {
  handle: DatabaseHandle;
  /** The URL of this test's own database (postgres only). */
  url: string | undefined;
  drop(): Promise<void>;
}

function serverUrl(): string {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is not set');
  return url;
}

/** Runs one statement on the server's maintenance connection (CREATE/DROP DATABASE cannot run in a pool). */
async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl() });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** A fresh, migrated database: an in-memory PGlite, or a new database on the PostgreSQL server. */
export async function createTestDatabase(
  backend: Backend,
  options: { migrate?: boolean } = {},
): Promise<TestDatabase> {
  if (backend === 'pglite') {
    const handle = await openDatabase({ url: undefined, embeddedDir: 'memory://' });
    if (options.migrate !== false) await migrate(handle);
    return { handle, url: undefined, drop: () => handle.close() };
  }
  const name = `accounts_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl());
  url.pathname = `/${name}`;
  const handle = await openDatabase({ url: url.toString(), embeddedDir: '', poolMax: 20 });
  if (options.migrate !== false) await migrate(handle);
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
