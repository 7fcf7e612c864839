import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import type { BenchDatabase } from './database.js';
import type { Row } from './report.js';
import { ROOT } from './service.js';

/** The users the console's search is measured on, added by one generate_series INSERT. */
export const CONSOLE_SEARCH_USERS = 1_000_000;
/** Searches of each kind, after as many unmeasured ones. */
const SEARCHES = 300;

/** The parts of the built service this scenario calls (dist/: the bench compiles apart from src/). */
interface SearchModules {
  config: { loadConfig(env: Record<string, string>): unknown };
  open: { openConfiguredDatabase(config: unknown): Promise<{ db: unknown; close(): Promise<void> }> };
  search: { ConsoleUserSearch: new (repo: unknown, cursors: unknown, gate: unknown) => Searcher };
  access: { StaffGate: new (recorder: { record(): Promise<void> }) => unknown };
  repo: { UserSearchRepo: new (db: unknown) => { cursorKey(): Promise<Uint8Array> } };
  cursor: { UserSearchCursorCodec: new (key: () => Promise<Uint8Array>) => unknown };
}

interface Searcher {
  search(
    actor: { id: string; role: 'viewer'; clientAddress: string },
    request: Record<string, string | number>,
  ): Promise<{ users: unknown[]; next_cursor: string | null }>;
}

const load = (file: string) => import(pathToFileURL(`${ROOT}dist/${file}`).href);

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

/** One kind of search: the request for its n-th run (a different user each time, so no page is cached hot). */
interface Kind {
  name: string;
  request(n: number): Record<string, string | number>;
}

const pick = (n: number) => 1 + ((n * 7_919) % CONSOLE_SEARCH_USERS);
/** The seeded user `n`'s number as support types it: `+821000001234` is `010-0000-1234`. */
const typedPhone = (n: number) => {
  const digits = String(n).padStart(8, '0');
  return `010-${digits.slice(0, 4)}-${digits.slice(4)}`;
};

const KINDS: Kind[] = [
  { name: 'email, exact', request: (n) => ({ field: 'email', query: `SEED-${pick(n)}@bench.example` }) },
  { name: 'username, exact', request: (n) => ({ field: 'username', query: `seed${pick(n)}` }) },
  // `seed12345` begins 11 usernames of a million (itself and seed123450…9): a narrow prefix.
  {
    name: 'username, prefix (narrow)',
    request: (n) => ({ field: 'username', mode: 'prefix', query: `seed${pick(n)}` }),
  },
  // `seed1` begins 111,111 of them: the first page of a wide range, in index order.
  {
    name: 'email, prefix (wide), 20',
    request: () => ({ field: 'email', mode: 'prefix', query: 'seed-1', limit: 20 }),
  },
  {
    name: 'slug, prefix (wide), 100',
    request: () => ({ field: 'slug', mode: 'prefix', query: 'seed-2', limit: 100 }),
  },
  { name: 'phone, exact (as typed)', request: (n) => ({ field: 'phone', query: typedPhone(pick(n)) }) },
  // `010-001` is +8210001…: the 100,000 numbers of users 100,000–199,999.
  {
    name: 'phone, prefix (wide), 20',
    request: () => ({ field: 'phone', mode: 'prefix', query: '010-001', limit: 20 }),
  },
];

/**
 * `--scenarios=console-search`: the console's user search (src/account/console-users/search.ts, built) on a
 * database of a million users, called in process as the admin API's handler calls it: p50 and p99 of each
 * kind, and of a next page reached by its cursor. No HTTP: what is measured is the search and its index.
 */
export async function benchConsoleSearch(database: BenchDatabase, seededUpTo: number): Promise<Row[]> {
  await database.seedUsers(seededUpTo + 1, CONSOLE_SEARCH_USERS);
  const modules: SearchModules = {
    config: await load('config.js'),
    open: await load('db/open-configured.js'),
    search: await load('account/console-users/search.js'),
    access: await load('account/console-users/staff-access.js'),
    repo: await load('modules/users/search-repo.js'),
    cursor: await load('modules/users/search-cursor.js'),
  };
  const config = modules.config.loadConfig({ ...database.env, LOG_LEVEL: 'silent' });
  const handle = await modules.open.openConfiguredDatabase(config);
  try {
    const repo = new modules.repo.UserSearchRepo(handle.db);
    const cursors = new modules.cursor.UserSearchCursorCodec(() => repo.cursorKey());
    const gate = new modules.access.StaffGate({ record: async () => {} });
    const searcher = new modules.search.ConsoleUserSearch(repo, cursors, gate);
    const actor = {
      id: '00000000-0000-7000-8000-000000000000',
      role: 'viewer' as const,
      clientAddress: '127.0.0.1',
    };
    const rows: Row[] = [];
    const measure = async (
      name: string,
      request: (n: number) => Promise<Record<string, string | number>>,
    ) => {
      for (let n = 0; n < SEARCHES; n++) await searcher.search(actor, await request(n + SEARCHES));
      const times: number[] = [];
      for (let n = 0; n < SEARCHES; n++) {
        const body = await request(n);
        const start = performance.now();
        const page = await searcher.search(actor, body);
        times.push(performance.now() - start);
        if (page.users.length === 0) throw new Error(`${name}: found nobody for ${JSON.stringify(body)}`);
      }
      times.sort((a, b) => a - b);
      const total = times.reduce((sum, time) => sum + time, 0) / 1000;
      rows.push({
        scenario: `console search: ${name} @1,000,000`,
        result: {
          requestsPerSecond: SEARCHES / total,
          p50: percentile(times, 0.5),
          p99: percentile(times, 0.99),
          failures: 0,
        },
      });
    };
    for (const kind of KINDS) await measure(kind.name, async (n) => kind.request(n));
    // The second page of a wide prefix: the cursor's keyset probe, not a re-read of the first page.
    const wide = { field: 'email', mode: 'prefix', query: 'seed-3', limit: 20 };
    const next = (await searcher.search(actor, wide)).next_cursor;
    if (next === null) throw new Error('the wide prefix has one page');
    await measure('email, prefix (wide), next page', async () => ({ ...wide, cursor: next }));
    return rows;
  } finally {
    await handle.close();
  }
}
