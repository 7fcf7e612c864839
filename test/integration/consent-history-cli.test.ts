import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsentHistoryEntry } from '../../src/modules/consents/history.js';
import { useTestApp } from '../helpers/app.js';
import { appCommands, type InProcessCommands } from '../helpers/commands.js';
import { backends } from '../helpers/database.js';
import { registrationForm } from '../helpers/factories.js';
import { postForm } from '../helpers/http.js';

/**
 * What an operator shows to prove what a user agreed to and when: the records the service wrote through the
 * API, read back by `accounts consent history` from the same database (the commands in this process, on the
 * app's database: a process of its own is test/e2e/cli-beside-server's and test/e2e/cli's subject).
 */
describe.each(backends)('%s: accounts consent history', (backend) => {
  const ctx = useTestApp(backend);
  let commands: InProcessCommands;

  beforeAll(() => {
    commands = appCommands(ctx);
  });
  afterAll(async () => {
    await commands?.close();
  });

  const post = async (url: string, fields: Record<string, string>, token?: string) => {
    const res = await postForm(ctx.app, url, fields, token ? { authorization: `Bearer ${token}` } : {});
    return { status: res.statusCode, body: res.json() as { data: Record<string, unknown> } };
  };

  it('lists every agreement and withdrawal of the user, with time, address and channel', async () => {
    const fields = { ...registrationForm(), consent_marketing_email: 'on' };
    const registered = await post('/v1/auth/register', fields);
    expect(registered.status).toBe(200);
    const token = (registered.body.data.user as { api_token: string }).api_token;
    const withdrawn = await post('/v1/user/consents/update', { marketing_email: 'off' }, token);
    expect(withdrawn.status).toBe(200);

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
