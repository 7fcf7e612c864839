import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { tighten } from './data-dir.js';
import { lockDataDir } from './data-dir-lock.js';
import { PGlitePool } from './pglite-pool.js';
import type { Database } from './schema.js';

/** A raw session on one connection, for what the query builder is not for: migration scripts and locks. */
export interface RawSession {
  /** Runs a script of one or more statements without parameters. */
  exec(script: string): Promise<void>;
  query<R = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<R[]>;
}

export interface DatabaseHandle {
  kind: 'embedded' | 'postgres';
  db: Kysely<Database>;
  withSession<T>(work: (session: RawSession) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** The server's timestamps come back as Date on both drivers; bigint counts as JS numbers. */
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export interface DatabaseOptions {
  /** postgres:// URL; undefined = embedded PGlite. */
  url: string | undefined;
  /** Where PGlite keeps its files; `memory://` for a throwaway in-memory database. */
  embeddedDir: string;
  poolMax?: number;
}

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  return options.url === undefined
    ? openEmbedded(options.embeddedDir)
    : openServer(options.url, options.poolMax ?? 10);
}

async function openEmbedded(dir: string): Promise<DatabaseHandle> {
  let unlock = async () => {};
  if (!dir.startsWith('memory://')) {
    await mkdir(path.dirname(dir), { recursive: true });
    unlock = await lockDataDir(`${dir}.lock`);
  }
  let pglite: PGlite;
  try {
    pglite = await PGlite.create(dir);
    if (!dir.startsWith('memory://')) await tighten(dir);
  } catch (error) {
    await unlock();
    throw error;
  }
  const pool = new PGlitePool(pglite);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    kind: 'embedded',
    db,
    async withSession(work) {
      const release = await pool.acquire();
      try {
        return await work({
          exec: async (script) => {
            await pglite.exec(script);
          },
          query: async <R>(sql: string, params: unknown[] = []) => (await pglite.query<R>(sql, params)).rows,
        });
      } finally {
        release();
      }
    },
    close: async () => {
      await db.destroy();
      await unlock();
    },
  };
}

async function openServer(url: string, max: number): Promise<DatabaseHandle> {
  const pool = new pg.Pool({ connectionString: url, max, connectionTimeoutMillis: 5_000 });
  // An idle client losing its connection (server restart) must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    kind: 'postgres',
    db,
    async withSession(work) {
      const client = await pool.connect();
      try {
        return await work({
          exec: async (script) => {
            await client.query(script);
          },
          query: async <R>(sql: string, params: unknown[] = []) =>
            (await client.query(sql, params)).rows as R[],
        });
      } finally {
        client.release();
      }
    },
    close: () => db.destroy(),
  };
}
