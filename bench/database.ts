import { randomBytes } from 'node:crypto';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';

/**
 * Where one backend's run keeps its data: a temp DATA_DIR (the embedded PGlite lives in it), and for
 * PostgreSQL a database of its own on the server, created here and dropped afterwards like the tests do.
 */
export interface BenchDatabase {
  name: 'pglite' | 'postgres';
  /** The service's environment for this database. */
  env: Record<string, string>;
  /**
   * Adds users `from`..`to` in ONE statement (INSERT … SELECT generate_series), straight into the database:
   * registering 50,000 users through the API would spend minutes in argon2. The service must be stopped
   * for PGlite (one process owns its files). The users have no password; only their email, username and
   * slug matter to the scenarios that read them.
   */
  seedUsers(from: number, to: number): Promise<void>;
  /**
   * The environment of a second process reading the same rows beside the service. A PostgreSQL server takes
   * both; PGlite's files belong to one process, so the second one gets a copy of them, taken while no process
   * has them open (the rows, pages and indexes the service reads).
   */
  besideService(): Promise<Record<string, string>>;
  drop(): Promise<void>;
}

const SEED_SQL = `
INSERT INTO users (id, email, username, slug, phone, gender)
SELECT gen_random_uuid(), 'seed-' || n || '@bench.example', 'seed' || n, 'seed-' || n,
  '+8210' || lpad(n::text, 8, '0'), n % 2
FROM generate_series($1::int, $2::int) AS n`;

// The planner should see the table as a production database's autovacuum would have left it.
const ANALYZE_SQL = 'ANALYZE users';

export async function embeddedDatabase(): Promise<BenchDatabase> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'accounts-bench-'));
  const copies: string[] = [];
  return {
    name: 'pglite',
    env: { DATA_DIR: dataDir },
    async seedUsers(from, to) {
      const pglite = await PGlite.create(path.join(dataDir, 'pglite'));
      try {
        await pglite.query(SEED_SQL, [from, to]);
        await pglite.exec(ANALYZE_SQL);
      } finally {
        await pglite.close();
      }
    },
    async besideService() {
      const copy = await mkdtemp(path.join(tmpdir(), 'accounts-bench-copy-'));
      copies.push(copy);
      await cp(path.join(dataDir, 'pglite'), path.join(copy, 'pglite'), { recursive: true });
      return { DATA_DIR: copy };
    },
    async drop() {
      for (const dir of [dataDir, ...copies]) await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Runs one statement on the server's maintenance connection (CREATE/DROP DATABASE cannot run in a pool). */
async function admin(serverUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

export async function serverDatabase(serverUrl: string): Promise<BenchDatabase> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'accounts-bench-'));
  const name = `accounts_bench_${process.pid}_${randomBytes(4).toString('hex')}`;
  await admin(serverUrl, `CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();
  return {
    name: 'postgres',
    env: { DATA_DIR: dataDir, DATABASE_URL: databaseUrl },
    besideService: async () => ({ DATA_DIR: dataDir, DATABASE_URL: databaseUrl }),
    async seedUsers(from, to) {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        await client.query(SEED_SQL, [from, to]);
        await client.query(ANALYZE_SQL);
      } finally {
        await client.end();
      }
    },
    async drop() {
      await admin(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
