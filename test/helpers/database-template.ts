import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';

export function serverUrl(): string {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is not set');
  return url;
}

/** Runs one statement on the server's maintenance connection (CREATE/DROP DATABASE cannot run in a pool). */
export async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl() });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * The run's migrated PostgreSQL database: each test database is `CREATE DATABASE … TEMPLATE` of it, a file
 * copy on the server, instead of running every migration again. Nothing may stay connected to it (the copy
 * would fail), so it is closed once migrated. Dropped when the run ends.
 */
export async function createPostgresTemplate(): Promise<{ name: string; drop(): Promise<void> }> {
  const name = `accounts_template_${process.pid}_${randomBytes(4).toString('hex')}`;
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl());
  url.pathname = `/${name}`;
  const handle = await openDatabase({ url: url.toString(), embeddedDir: '' });
  try {
    await migrate(handle);
  } finally {
    await handle.close();
  }
  return { name, drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
