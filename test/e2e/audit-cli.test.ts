import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { osUserName } from '../../src/cli/os-user.js';
import { newId } from '../../src/lib/ids.js';
import { type InProcessCommands, inProcessCommands } from '../helpers/commands.js';
import { backends, createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { expectOneLineFailure, runCli } from '../helpers/process.js';

const run = promisify(execFile);

/**
 * `accounts audit verify|review` and the user commands' own access records, on PostgreSQL: the records are
 * tampered with the way an operator with `psql` and a superuser's rights could (the trigger disabled).
 */
describe.runIf(backends.includes('postgres'))('postgres: accounts audit', () => {
  let dataDir = '';
  let database: TestDatabase;
  let env: Record<string, string>;
  let commands: InProcessCommands;
  const userId = newId();

  const psql = (statement: string) =>
    run('psql', [database.url as string, '-v', 'ON_ERROR_STOP=1', '-q', '-c', statement]);
  const withTriggerOff = (statement: string) =>
    psql(
      'ALTER TABLE access_records DISABLE TRIGGER access_records_append_only; ' +
        `${statement}; ALTER TABLE access_records ENABLE TRIGGER access_records_append_only`,
    );

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'accounts-audit-'));
    database = await createTestDatabase('postgres');
    env = { DATA_DIR: dataDir, DATABASE_URL: database.url as string };
    await database.handle.db
      .insertInto('users')
      .values({ id: userId, email: 'minji@example.com', username: 'minji', slug: 'minji', gender: 0 })
      .execute();
    commands = inProcessCommands(env);
  });
  afterAll(async () => {
    await commands?.close();
    await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('records each user command as the OS user who ran it, whatever its outcome', async () => {
    expect((await runCli(['user', 'disable', 'minji'], env)).code).toBe(0);
    expect((await commands.run(['user', 'show', userId])).code).toBe(0);
    expect((await commands.run(['user', 'list', '--query', 'minj', '--json'])).code).toBe(0);
    expect((await commands.run(['user', 'enable', 'nobody'])).code).toBe(1);
    expect((await commands.run(['token', 'revoke', '--user', 'minji', '--all'])).code).toBe(0);
    expect((await commands.run(['consent', 'history', 'minji', '--json'])).code).toBe(0);
    const rows = await database.handle.db
      .selectFrom('access_records')
      .select(['seq', 'actor_kind', 'actor', 'client_address', 'subject_id', 'action', 'outcome', 'detail'])
      .orderBy('seq')
      .execute();
    const by = { actor_kind: 'cli', actor: osUserName(), client_address: null };
    const host = hostname();
    expect(rows.map((row) => ({ ...row, seq: String(row.seq) }))).toEqual([
      { seq: '1', ...by, subject_id: userId, action: 'user.disable', outcome: 'ok', detail: { host } },
      { seq: '2', ...by, subject_id: userId, action: 'user.view', outcome: 'ok', detail: { host } },
      {
        seq: '3',
        ...by,
        subject_id: null,
        action: 'users.search',
        outcome: 'ok',
        detail: { host, query: 'minj', limit: 20, rows: 1 },
      },
      {
        seq: '4',
        ...by,
        subject_id: null,
        action: 'user.enable',
        outcome: 'failed',
        detail: { host, error: 'user "nobody" not found' },
      },
      {
        seq: '5',
        ...by,
        subject_id: userId,
        action: 'user.sessions.revoke',
        outcome: 'ok',
        detail: { host },
      },
      { seq: '6', ...by, subject_id: userId, action: 'user.consents.view', outcome: 'ok', detail: { host } },
    ]);
  });

  it('verifies the chain, then names a record changed and a record deleted with psql', async () => {
    const intact = await runCli(['audit', 'verify', '--json'], env);
    expect(intact.code, intact.stderr).toBe(0);
    const head = await database.handle.db
      .selectFrom('access_record_head')
      .selectAll()
      .executeTakeFirstOrThrow();
    expect(JSON.parse(intact.stdout)).toEqual({
      ok: true,
      records: 6,
      anchor_seq: '1',
      last_seq: '6',
      last_hash: head.last_hash,
    });

    await withTriggerOff("UPDATE access_records SET action = 'user.enable' WHERE seq = 2");
    expectOneLineFailure(
      await commands.run(['audit', 'verify']),
      'The access records do not verify: record 2 fails: its fields do not give its hash (it was changed ' +
        'after it was written); 1 earlier record verified.',
    );
    const json = await runCli(['audit', 'verify', '--json'], env);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual({
      ok: false,
      records: 1,
      first_bad: { seq: '2', problem: 'hash_mismatch', missing_from: null },
    });
    expect(json.stderr.trimEnd().split('\n')).toHaveLength(1);

    await withTriggerOff("UPDATE access_records SET action = 'user.view' WHERE seq = 2");
    expect((await commands.run(['audit', 'verify'])).stdout).toBe(
      `The access records verify: 6 records, 1 to 6; the last hash is ${head.last_hash}.\n`,
    );
    await withTriggerOff('DELETE FROM access_records WHERE seq = 3');
    expectOneLineFailure(
      await commands.run(['audit', 'verify']),
      'The access records do not verify: record 4 fails: record 3 before it is missing (deleted); 2 earlier ' +
        'records verified.',
    );
  }, 120_000);

  it('prints the monthly review as JSON, and refuses a month it cannot read', async () => {
    const month = new Intl.DateTimeFormat('en-CA', {
      timeZone: 'Asia/Seoul',
      year: 'numeric',
      month: '2-digit',
    })
      .format(new Date())
      .slice(0, 7);
    // The whole week is working time here: the commands above ran whenever the suite did.
    const quiet = inProcessCommands({
      ...env,
      CONSOLE_WORKING_HOURS: '00:00-24:00',
      CONSOLE_WORKING_DAYS: 'mon-sun',
    });
    try {
      const result = await quiet.run(['audit', 'review', '--month', month, '--json']);
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({
        month,
        time_zone: 'Asia/Seoul',
        working_hours: '00:00-24:00',
        working_days: 'mon-sun',
        findings: [],
      });
      expectOneLineFailure(
        await quiet.run(['audit', 'review', '--month', '2026-3']),
        '--month: a month such as 2026-03 (got "2026-3")',
      );
    } finally {
      await quiet.close();
    }
  });

  // One process: the other refusals of the variable are the config's unit test's.
  it('will not start with access records kept under a year', async () => {
    expectOneLineFailure(
      await runCli(['serve'], { ...env, ACCESS_RECORD_RETENTION: '300d' }),
      'Invalid configuration: ACCESS_RECORD_RETENTION must be at least 1y (365d): the law asks access records ' +
        'be kept a year (got "300d")',
    );
  }, 120_000);
});
