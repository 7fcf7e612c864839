import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase } from '../../src/db/client.js';
import { BUILT_TEMPLATE } from '../../src/db/pglite-template.js';
import { newId } from '../../src/lib/ids.js';
import type { UserListPage } from '../../src/modules/users/list-service.js';
import { type InProcessCommands, inProcessCommands } from '../helpers/commands.js';
import { backends, createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { expectOneLineFailure } from '../helpers/process.js';

/** Accounts written straight into the database (the command's subject is what it finds). */
const ACCOUNTS = [
  { email: 'Alice.Kim@Example.com', username: 'AliceKim', slug: 'alice-kim' },
  { email: 'alicia@example.com', username: 'alicia', slug: 'alicia' },
  { email: 'bob@example.com', username: 'bob', slug: 'bob-builder' },
  { email: 'bobby@example.com', username: 'bobby', slug: 'bobby' },
  { email: '100%real@example.com', username: 'under_score', slug: 'real-one' },
  { email: '100xreal@example.com', username: 'underxscore', slug: 'real-two' },
  ...Array.from({ length: 25 }, (_, i) => {
    const n = String(i).padStart(2, '0');
    return { email: `pager${n}@example.com`, username: `pager${n}`, slug: `pager-${n}` };
  }),
];

describe.each(backends)('%s: accounts user list', (backend) => {
  let dataDir = '';
  let database: TestDatabase | undefined;
  let commands: InProcessCommands;
  const ids = new Map<string, string>();

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'accounts-user-list-'));
    const env: Record<string, string> = { DATA_DIR: dataDir };
    let handle: DatabaseHandle;
    if (backend === 'postgres') {
      database = await createTestDatabase('postgres');
      handle = database.handle;
      env.DATABASE_URL = database.url as string;
    } else {
      handle = await openDatabase({
        url: undefined,
        embeddedDir: path.join(dataDir, 'pglite'),
        embeddedTemplate: BUILT_TEMPLATE,
      });
    }
    const rows = ACCOUNTS.map((account) => ({ id: newId(), gender: 0, ...account }));
    for (const row of rows) ids.set(row.username, row.id);
    await handle.db.insertInto('users').values(rows).execute();
    if (backend === 'pglite') await handle.close();
    commands = inProcessCommands(env);
  });
  afterAll(async () => {
    await commands?.close();
    await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  /** The usernames `accounts user list ARGS --json` finds, and its page. */
  async function found(args: string[]): Promise<{ names: string[]; page: UserListPage }> {
    const result = await commands.run(['user', 'list', ...args, '--json']);
    expect(result.code, result.stderr).toBe(0);
    const page = JSON.parse(result.stdout) as UserListPage;
    return { names: page.users.map((user) => user.username), page };
  }

  it('finds an exact email, username or slug, in any case', async () => {
    expect((await found(['--query', 'bob@example.com'])).names).toEqual(['bob']);
    expect((await found(['--query', 'BOB@EXAMPLE.COM'])).names).toEqual(['bob']);
    expect((await found(['--query', 'bobby'])).names).toEqual(['bobby']);
    expect((await found(['--query', 'Bob-Builder'])).names).toEqual(['bob']);
    expect((await found(['--query', 'nobody@example.com'])).names).toEqual([]);
  });

  it('finds by a prefix, in any case, in id order', async () => {
    expect((await found(['--query', 'ALI'])).names).toEqual(['AliceKim', 'alicia']);
    expect((await found(['--query', 'alice.k'])).names).toEqual(['AliceKim']);
    expect((await found(['--query', 'BoB'])).names).toEqual(['bob', 'bobby']);
  });

  it('finds by a prefix of the id', async () => {
    const id = ids.get('alicia') as string;
    expect((await found(['--query', id])).names).toEqual(['alicia']);
    expect((await found(['--query', id.slice(0, 32).toUpperCase()])).names).toContain('alicia');
    // Not a UUID's beginning: no id matches, nothing fails.
    expect((await found(['--query', `${id.slice(0, 8)}x`])).names).toEqual([]);
  });

  it('takes % and _ in the query literally', async () => {
    expect((await found(['--query', '100%'])).names).toEqual(['under_score']);
    expect((await found(['--query', 'under_'])).names).toEqual(['under_score']);
    expect((await found(['--query', '%'])).names).toEqual([]);
    expect((await found(['--query', '_'])).names).toEqual([]);
  });

  it('pages through every match by its cursor: no duplicate, no gap, a last page without a cursor', async () => {
    const walked: string[] = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    do {
      const args: string[] = ['--query', 'pager', '--limit', '10', ...(cursor ? ['--cursor', cursor] : [])];
      const { names, page } = await found(args);
      walked.push(...names);
      sizes.push(names.length);
      cursor = page.next_cursor;
    } while (cursor !== null && sizes.length < 10);
    expect(sizes).toEqual([10, 10, 5]);
    const expected = ACCOUNTS.filter((a) => a.username.startsWith('pager')).map((a) => a.username);
    // newId() is time-ordered: the accounts' id order is the order they were written in.
    expect(walked).toEqual(expected);
    expect(new Set(walked).size).toBe(25);
  });

  it('prints a table, and the cursor of the next page', async () => {
    const result = await commands.run(['user', 'list', '--query', 'pager', '--limit', '2']);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+EMAIL\s+USERNAME\s+SLUG\s+CREATED\s+STATE$/);
    expect(lines[1]).toMatch(
      new RegExp(
        `^${ids.get('pager00')}\\s+pager00@example\\.com\\s+pager00\\s+pager-00\\s+\\S+Z\\s+enabled$`,
      ),
    );
    expect(lines[3]).toMatch(/^next_cursor: \S+$/);
    const next = (lines[3] as string).slice('next_cursor: '.length);
    const second = await found(['--query', 'pager', '--limit', '2', '--cursor', next]);
    expect(second.names).toEqual(['pager02', 'pager03']);
    expect(await commands.run(['user', 'list', '--query', 'nobody'])).toEqual({
      code: 0,
      stdout: 'No users.\n',
      stderr: '',
    });
  });

  it('lists every account without a query, 20 to a page', async () => {
    const { names, page } = await found([]);
    expect(names).toHaveLength(20);
    expect(page.next_cursor).toEqual(expect.any(String));
  });

  it.each(['0', '101', 'abc', '1.5', '-1', ''])('refuses --limit %j with one line', async (limit) => {
    expectOneLineFailure(
      await commands.run(['user', 'list', '--limit', limit]),
      `--limit: a whole number from 1 to 100 (got "${limit}")\n`.trimEnd(),
    );
  });

  it('refuses a cursor it did not make with one line', async () => {
    expectOneLineFailure(
      await commands.run(['user', 'list', '--cursor', 'eyJpIjoiMSJ9.AAAAAAAAAAAAAAAAAAAAAA']),
      '--cursor: The selected cursor is invalid.',
    );
  });
});
