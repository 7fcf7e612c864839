import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { loadMigrations, pendingMigrations } from '../../src/db/migrate.js';
import { BUILT_TEMPLATE, builtTemplate } from '../../src/db/pglite-template.js';
import { PGliteThread } from '../../src/db/pglite-thread.js';

/** The service's secrets of one embedded database, by name, as hex. */
async function secretsOf(thread: PGliteThread): Promise<Record<string, string>> {
  const { rows } = await thread.query<{ name: string; secret: Uint8Array }>(
    'SELECT name, secret FROM service_secrets ORDER BY name',
  );
  return Object.fromEntries(rows.map((row) => [row.name, Buffer.from(row.secret).toString('hex')]));
}

describe('the embedded database’s migrated template', () => {
  let parent: string;
  beforeAll(async () => {
    parent = await mkdtemp(path.join(tmpdir(), 'pglite-template-'));
  });
  afterAll(async () => {
    await rm(parent, { recursive: true, force: true });
  });

  it('is part of the build, and carries every migration of it', async () => {
    expect(builtTemplate()).toBe(BUILT_TEMPLATE);
    expect(builtTemplate(path.join(parent, 'none.tar.gz'))).toBeUndefined();
    const handle = await openDatabase({
      url: undefined,
      embeddedDir: 'memory://',
      embeddedTemplate: BUILT_TEMPLATE,
    });
    try {
      expect(await pendingMigrations(handle)).toEqual([]);
      const applied = await handle.withSession((session) =>
        session.query<{ version: string }>('SELECT version FROM schema_migrations ORDER BY version'),
      );
      expect(applied.map((row) => row.version)).toEqual(
        (await loadMigrations()).map((migration) => migration.version),
      );
    } finally {
      await handle.close();
    }
  });

  it('starts a new data directory as a copy with secrets of its own, and opens it as it is afterwards', async () => {
    const first = path.join(parent, 'first', 'pglite');
    const second = path.join(parent, 'second', 'pglite');
    const a = await PGliteThread.open(first, BUILT_TEMPLATE);
    const b = await PGliteThread.open(second, BUILT_TEMPLATE);
    let before: Record<string, string>;
    try {
      expect(existsSync(path.join(first, 'PG_VERSION'))).toBe(true);
      before = await secretsOf(a);
      const other = await secretsOf(b);
      expect(Object.keys(before).sort()).toEqual([
        'data_export_link',
        'feed_cursor',
        'security_events_cursor',
        'user_list_cursor',
      ]);
      for (const [name, secret] of Object.entries(before)) {
        expect(secret).toMatch(/^[0-9a-f]{60,64}$/);
        expect(other[name]).not.toBe(secret);
      }
      // Nothing left of the copy beside the directory: no marker, no half-unpacked sibling.
      expect(await readdir(path.dirname(first))).toEqual(['pglite']);
      expect(await readdir(first)).not.toContain('accounts-copied-from-template');
      await a.exec("INSERT INTO schema_migrations (version) VALUES ('9999_written_here')");
    } finally {
      await a.close();
      await b.close();
    }
    const again = await PGliteThread.open(first, BUILT_TEMPLATE);
    try {
      expect(await secretsOf(again)).toEqual(before);
      const { rows } = await again.query(
        "SELECT 1 FROM schema_migrations WHERE version = '9999_written_here'",
      );
      expect(rows).toHaveLength(1);
    } finally {
      await again.close();
    }
  });

  it('draws new secrets on the next start when a start ended between the copy and its own secrets', async () => {
    const dir = path.join(parent, 'interrupted', 'pglite');
    const thread = await PGliteThread.open(dir, BUILT_TEMPLATE);
    const first = await secretsOf(thread);
    await thread.close();
    // As the copy leaves it before its secrets are drawn.
    await writeFile(path.join(dir, 'accounts-copied-from-template'), '');
    const again = await PGliteThread.open(dir, BUILT_TEMPLATE);
    try {
      const second = await secretsOf(again);
      for (const name of Object.keys(first)) expect(second[name]).not.toBe(first[name]);
    } finally {
      await again.close();
    }
    expect(existsSync(path.join(dir, 'accounts-copied-from-template'))).toBe(false);
  });

  it('gives every in-memory copy secrets of its own', async () => {
    const a = await PGliteThread.open('memory://', BUILT_TEMPLATE);
    const b = await PGliteThread.open('memory://', BUILT_TEMPLATE);
    try {
      const [first, second] = [await secretsOf(a), await secretsOf(b)];
      expect(first.feed_cursor).not.toBe(second.feed_cursor);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('refuses a directory that holds files but no database, and leaves them alone', async () => {
    const dir = path.join(parent, 'occupied', 'pglite');
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'notes.txt'), 'an operator’s file');
    await expect(PGliteThread.open(dir, BUILT_TEMPLATE)).rejects.toThrow(
      /the embedded database could not be created in .*occupied\/pglite/,
    );
    expect(await readdir(dir)).toEqual(['notes.txt']);
    expect(await readdir(path.dirname(dir))).toEqual(['pglite']);
  });
});
