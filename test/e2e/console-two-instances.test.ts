import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.js';
import { type InProcessCommands, inProcessCommands } from '../helpers/commands.js';
import { TEST_SECRETS_KEY } from '../helpers/config.js';
import { backends, createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { type RunningService, startService } from '../helpers/process.js';
import { currentCode } from '../helpers/totp.js';

interface Answer {
  status: number;
  body: { meta: { code: number; error_type?: string }; data: Record<string, unknown> };
  cookie: string | null;
}

async function call(
  url: string,
  method: 'GET' | 'POST',
  headers: Record<string, string> = {},
  payload?: Record<string, string>,
): Promise<Answer> {
  const res = await fetch(url, {
    method,
    headers: payload ? { 'content-type': 'application/json', ...headers } : headers,
    ...(payload ? { body: JSON.stringify(payload) } : {}),
  });
  return {
    status: res.status,
    body: (await res.json()) as Answer['body'],
    cookie: /accounts_staff=([^;]*)/.exec(res.headers.get('set-cookie') ?? '')?.[0] ?? null,
  };
}

const FROM_CONSOLE = { 'x-requested-with': 'accounts-web' };
/** Requests fired at once through both instances: enough for appends to meet at the chain's head. */
const CONCURRENT = 48;

// Two servers on one PostgreSQL database: staff sessions are rows, and every append of either instance
// waits for the chain head's row lock, so their records make one chain.
describe.runIf(backends.includes('postgres'))('postgres: the console on two instances', () => {
  let dataDir = '';
  let database: TestDatabase;
  let commands: InProcessCommands;
  const services: RunningService[] = [];
  const userId = newId();

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'accounts-console-two-'));
    database = await createTestDatabase('postgres');
    await database.handle.db
      .insertInto('users')
      .values({ id: userId, email: 'minji@example.com', username: 'minji', slug: 'minji', gender: 0 })
      .execute();
    const env = {
      DATA_DIR: dataDir,
      DATABASE_URL: database.url as string,
      SECRETS_KEY: TEST_SECRETS_KEY,
      ARGON2_MEMORY_KIB: '1024',
      ARGON2_TIME_COST: '1',
    };
    services.push(...(await Promise.all([startService(env), startService(env)])));
    commands = inProcessCommands(env);
  });
  afterAll(async () => {
    await commands?.close();
    await Promise.all(services.map((service) => service.stop()));
    await database?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('shares a staff session across instances, and concurrent records through both make one chain', async () => {
    const [a, b] = services.map((service) => `${service.url}/admin/v1`) as [string, string];
    const added = await commands.run(['staff', 'add', 'ops@example.com', '--role', 'support', '--json']);
    expect(added.code, added.stderr).toBe(0);
    const token = new URL(
      (JSON.parse(added.stdout) as { enrollment_url: string }).enrollment_url,
    ).searchParams.get('token') as string;

    // Enrolled on B, signed in on A.
    const view = await call(`${b}/enrollment?token=${token}`, 'GET');
    const secret = (view.body.data as { totp_secret: string }).totp_secret;
    const password = 'a staff pass phrase';
    const enrolled = await call(`${b}/enrollment`, 'POST', FROM_CONSOLE, {
      token,
      password,
      code: currentCode(secret),
    });
    expect(enrolled.body).toEqual({ meta: { code: 200 }, data: { status: 'enrolled' } });
    // The next step's code: the enrollment's own is used.
    const login = await call(`${a}/auth/login`, 'POST', FROM_CONSOLE, {
      email: 'ops@example.com',
      password,
      code: currentCode(secret, 1),
    });
    expect(login.status).toBe(200);
    const session = {
      cookie: login.cookie as string,
      'x-csrf-token': (login.body.data as { csrf_token: string }).csrf_token,
    };

    // B knows A's session, and takes its CSRF token on a state change.
    const me = await call(`${b}/me`, 'GET', { cookie: session.cookie });
    expect(me.body.data).toEqual(login.body.data);
    const revealed = await call(`${b}/users/${userId}/reveal`, 'POST', session, {
      field: 'email',
      reason: 'Ticket 7: which address',
    });
    expect(revealed.body).toEqual({
      meta: { code: 200 },
      data: { field: 'email', value: 'minji@example.com' },
    });

    // Views and unmasks through both instances at once: each writes one record.
    const answers = await Promise.all(
      Array.from({ length: CONCURRENT }, (_, index) => {
        const base = index % 2 === 0 ? a : b;
        return index % 3 === 0
          ? call(`${base}/users/${userId}/reveal`, 'POST', session, {
              field: 'email',
              reason: `Ticket ${index}`,
            })
          : call(`${base}/users/${userId}`, 'GET', { cookie: session.cookie });
      }),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(CONCURRENT).fill(200));

    const verified = await commands.run(['audit', 'verify', '--json']);
    expect(verified.code, verified.stderr).toBe(0);
    const verdict = JSON.parse(verified.stdout) as { ok: boolean; records: number };
    expect(verdict).toMatchObject({ ok: true, records: CONCURRENT + 1 });

    // No fork: numbers 1…n without a gap, each record chained to the one before it and to no other.
    const rows = await database.handle.db.selectFrom('access_records').selectAll().orderBy('seq').execute();
    expect(rows.map((row) => Number(row.seq))).toEqual(
      Array.from({ length: CONCURRENT + 1 }, (_, i) => i + 1),
    );
    expect(new Set(rows.map((row) => row.prev_hash)).size).toBe(rows.length);
    rows.forEach((row, index) => {
      expect(row.prev_hash).toBe(index === 0 ? '0'.repeat(64) : rows[index - 1]?.hash);
    });
    const staffId = (login.body.data as { staff: { id: string } }).staff.id;
    expect(new Set(rows.map((row) => `${row.actor} ${row.subject_id} ${row.outcome}`))).toEqual(
      new Set([`${staffId} ${userId} ok`]),
    );
    const unmasks = rows.filter((row) => row.action === 'user.unmask.email');
    expect(unmasks).toHaveLength(1 + CONCURRENT / 3);

    // Signed out on B: the session is gone on A too.
    expect((await call(`${b}/auth/logout`, 'POST', session)).status).toBe(200);
    expect((await call(`${a}/me`, 'GET', { cookie: session.cookie })).body.meta).toEqual({
      code: 401,
      error_type: 'AuthenticationException',
      error_message: 'Unauthenticated.',
    });
  }, 60_000);
});
