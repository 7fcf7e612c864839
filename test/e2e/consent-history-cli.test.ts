import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsentHistoryEntry } from '../../src/modules/consents/history.js';
import { type InProcessCommands, inProcessCommands } from '../helpers/commands.js';
import { backends } from '../helpers/database.js';
import { registrationForm } from '../helpers/factories.js';
import { type RunningService, runCli, startService } from '../helpers/process.js';
import { type ProcessStore, processStore } from '../helpers/process-store.js';

/**
 * What an operator shows to prove what a user agreed to and when: the records the service wrote through the
 * API, read back by `accounts consent history` from the same database.
 */
// `accounts migrate` and the service are processes; the commands under test run in this process.
describe.each(backends)('%s: accounts consent history', { timeout: 60_000 }, (backend) => {
  let store: ProcessStore;
  let commands: InProcessCommands;
  let service: RunningService | undefined;

  beforeAll(async () => {
    store = await processStore(backend, { ARGON2_MEMORY_KIB: '1024', ARGON2_TIME_COST: '1' });
    expect((await runCli(['migrate'], store.env)).code).toBe(0);
    commands = inProcessCommands(store.env);
  });
  afterAll(async () => {
    await commands?.close();
    await service?.stop('SIGKILL');
    await store?.cleanup();
  });

  const post = async (url: string, fields: Record<string, string>, token?: string) => {
    const res = await fetch(`${service?.url}${url}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: new URLSearchParams(fields).toString(),
    });
    return { status: res.status, body: (await res.json()) as { data: Record<string, unknown> } };
  };

  it('lists every agreement and withdrawal of the user, with time, address and channel', async () => {
    service = await startService(store.env);
    const fields = { ...registrationForm(), consent_marketing_email: 'on' };
    const registered = await post('/v1/auth/register', fields);
    expect(registered.status).toBe(200);
    const token = (registered.body.data.user as { api_token: string }).api_token;
    const withdrawn = await post('/v1/user/consents/update', { marketing_email: 'off' }, token);
    expect(withdrawn.status).toBe(200);
    // The embedded database belongs to the server while it runs.
    expect(await service.stop()).toBe(0);
    service = undefined;

    const json = await commands.run(['consent', 'history', fields.email, '--json']);
    expect(json.code, json.stderr).toBe(0);
    const entries = JSON.parse(json.stdout) as ConsentHistoryEntry[];
    expect(entries.map(({ key, agreed, channel }) => [key, agreed, channel])).toEqual([
      ['marketing_email', true, 'register'],
      ['marketing_email', false, 'update'],
      ['privacy', true, 'register'],
      ['terms', true, 'register'],
    ]);
    for (const entry of entries) {
      expect(entry).toMatchObject({ version: 1, client_address: '127.0.0.1', reminded_at: null });
      expect(new Date(entry.at).toISOString()).toBe(entry.at);
    }
    expect(Date.parse(entries[1]?.at ?? '')).toBeGreaterThanOrEqual(Date.parse(entries[0]?.at ?? ''));

    const table = await commands.run(['consent', 'history', fields.username]);
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^KEY\s+VERSION\s+ANSWER\s+AT\s+CHANNEL\s+ADDRESS\s+REMINDED$/);
    expect(lines.slice(1).map((line) => line.split(/\s+/).slice(0, 3))).toEqual([
      ['marketing_email', '1', 'agreed'],
      ['marketing_email', '1', 'withdrawn'],
      ['privacy', '1', 'agreed'],
      ['terms', '1', 'agreed'],
    ]);
  });

  it('names a user it does not know in one line, and exits 1', async () => {
    const result = await commands.run(['consent', 'history', 'nobody@example.com']);
    expect(result).toEqual({ code: 1, stdout: '', stderr: 'User "nobody@example.com" not found\n' });
  });
});
