import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase } from '../../src/db/client.js';
import { BUILT_TEMPLATE } from '../../src/db/pglite-template.js';
import { newId } from '../../src/lib/ids.js';
import { type InProcessCommands, inProcessCommands } from '../helpers/commands.js';
import { TEST_SECRETS_KEY } from '../helpers/config.js';
import { backends, createTestDatabase, type TestDatabase } from '../helpers/database.js';

/** An account written straight into the database (the commands' subject is what they print and do). */
async function insertUser(
  handle: DatabaseHandle,
  name: string,
  columns: { birth_date?: string; identity_verified_at?: Date; guardian_consent?: 'pending' },
): Promise<string> {
  const id = newId();
  await handle.db
    .insertInto('users')
    .values({ id, email: `${name}@example.com`, username: name, slug: name, gender: 0, ...columns })
    .execute();
  return id;
}

describe.each(backends)('%s: accounts user show and accounts identity release', (backend) => {
  let dataDir = '';
  let database: TestDatabase | undefined;
  let commands: InProcessCommands;
  const verified = `verified${randomBytes(3).toString('hex')}`;
  const child = `child${randomBytes(3).toString('hex')}`;
  let verifiedId = '';

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'accounts-identity-cli-'));
    const env: Record<string, string> = { DATA_DIR: dataDir, SECRETS_KEY: TEST_SECRETS_KEY };
    let handle: DatabaseHandle;
    if (backend === 'postgres') {
      database = await createTestDatabase('postgres');
      handle = database.handle;
      env.DATABASE_URL = database.url as string;
    } else {
      // The embedded database the commands open, made from the build's migrated template.
      handle = await openDatabase({
        url: undefined,
        embeddedDir: path.join(dataDir, 'pglite'),
        embeddedTemplate: BUILT_TEMPLATE,
      });
    }
    verifiedId = await insertUser(handle, verified, {
      birth_date: '1990-03-05',
      identity_verified_at: new Date('2026-11-20T01:02:03Z'),
    });
    await handle.db
      .insertInto('identity_verifications')
      .values({
        user_id: verifiedId,
        ci_hash: Buffer.alloc(32, 7),
        ci_binding: Buffer.alloc(32, 7),
        birth_date: '1990-03-05',
        foreigner: false,
        masked_name: '김*지',
        verified_at: new Date('2026-11-20T01:02:03Z'),
      })
      .execute();
    await insertUser(handle, child, { birth_date: '2016-01-01', guardian_consent: 'pending' });
    if (backend === 'pglite') await handle.close();
    commands = inProcessCommands(env);
  });
  afterAll(async () => {
    await commands?.close();
    await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('shows whether the account is verified, an adult, and its guardian consent', async () => {
    const shown = await commands.run(['user', 'show', verified]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/^identity\s+verified 2026-11-20T01:02:03\.000Z$/m);
    expect(shown.stdout).toMatch(/^adult\s+yes$/m);
    expect(shown.stdout).toMatch(/^guardian\s+-$/m);

    const minor = await commands.run(['user', 'show', child]);
    expect(minor.stdout).toMatch(/^identity\s+not verified$/m);
    expect(minor.stdout).toMatch(/^adult\s+no$/m);
    expect(minor.stdout).toMatch(/^guardian\s+pending$/m);
    const json = JSON.parse((await commands.run(['user', 'show', child, '--json'])).stdout);
    expect(json).toMatchObject({ identity_verified: false, adult: false, guardian_consent: 'pending' });
  });

  it('releases an account’s verification once, and says so when there is none', async () => {
    const released = await commands.run(['identity', 'release', verified]);
    expect(released).toEqual({
      code: 0,
      stdout: `Released the identity verification of ${verified} (${verifiedId}).\n`,
      stderr: '',
    });
    expect((await commands.run(['user', 'show', verified])).stdout).toMatch(/^identity\s+not verified$/m);
    const again = await commands.run(['identity', 'release', verified]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`${verified} (${verifiedId}) has no identity verification`);
    const activity = await commands.run(['user', 'show', verified, '--json']);
    expect(JSON.parse(activity.stdout)).toMatchObject({ identity_verified: false, adult: true });
  });

  it('describes itself', async () => {
    const help = await commands.run(['identity', 'release', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: accounts identity release /);
  });

  it('names a user it cannot find', async () => {
    const missing = await commands.run(['identity', 'release', 'nobody-here@example.com']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('nobody-here@example.com');
  });
});
