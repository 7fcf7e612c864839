import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configOnce } from '../../src/cli/environment.js';
import { openDatabase } from '../../src/db/client.js';
import { secretsKeyNotice } from '../../src/db/secrets-key-file.js';
import { buildWebhooks } from '../../src/services/webhooks.js';
import { type InProcessCommands, inProcessCommands } from '../helpers/commands.js';
import { TEST_SECRETS_KEY } from '../helpers/config.js';
import { backends } from '../helpers/database.js';
import { expectOneLineFailure } from '../helpers/process.js';
import { type ProcessStore, processStore } from '../helpers/process-store.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { emitDeleted } from '../helpers/webhooks.js';

const PRIVATE =
  /is a private, loopback or link-local address \(allowed only with WEBHOOK_ALLOW_PRIVATE=true\)\n$/;

// `accounts migrate` is a process; the commands under test run in this process on one open database.
describe.each(backends)('%s: accounts webhook', (backend) => {
  let store: ProcessStore;
  let commands: InProcessCommands | undefined;

  beforeAll(async () => {
    store = await processStore(backend, { SECRETS_KEY: TEST_SECRETS_KEY }, { migrated: true });
  });
  afterAll(async () => {
    await commands?.close();
    await store?.cleanup();
  });

  /** The commands with these settings (the embedded database is one process's: the previous set closes). */
  const using = async (env: Record<string, string>) => {
    await commands?.close();
    commands = inProcessCommands({ ...store.env, ...env });
    return (args: string[]) => (commands as InProcessCommands).run(['webhook', ...args]);
  };

  it('refuses private targets and http without WEBHOOK_ALLOW_PRIVATE, and asks PostgreSQL for SECRETS_KEY', async () => {
    const cli = await using({});
    expectOneLineFailure(
      await cli(['add', 'http://hooks.example.com/']),
      'http is not allowed: use https (http only with WEBHOOK_ALLOW_PRIVATE=true)',
    );
    expectOneLineFailure(await cli(['add', 'https://127.0.0.1/hooks']), PRIVATE);
    expectOneLineFailure(await cli(['add', 'https://[::1]/hooks']), PRIVATE);
    expectOneLineFailure(await cli(['add', 'https://localhost/hooks']), /^localhost resolves to .+, which /);
    expectOneLineFailure(await cli(['add', 'https://169.254.169.254/latest']), PRIVATE);
    const keyless = await using({ SECRETS_KEY: '' });
    if (backend === 'postgres') {
      // Every instance must share the key: nothing is made, and the line says how to make one.
      expectOneLineFailure(
        await keyless(['add', 'https://127.0.0.1/hooks']),
        'SECRETS_KEY is not set: webhook secrets are sealed with it (make one with `openssl rand -hex 32`, ' +
          'the same for every instance)',
      );
      expect(JSON.parse((await keyless(['list', '--json'])).stdout)).toEqual([]);
      return;
    }
    // The embedded database keeps its own key in DATA_DIR, made by the first process that needs it.
    const file = path.join(store.env.DATA_DIR as string, 'secrets.key');
    const first = await keyless(['list', '--json']);
    expect(first).toEqual({ code: 0, stdout: '[]\n', stderr: `${secretsKeyNotice(file)}\n` });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const key = await readFile(file, 'utf8');
    expect(key).toMatch(/^[0-9a-f]{64}\n$/);
    expectOneLineFailure(await keyless(['add', 'https://127.0.0.1/hooks']), PRIVATE);
    expect(await readFile(file, 'utf8')).toBe(key);
  });

  it('adds, lists, rotates, disables, enables, replays and removes an endpoint', async () => {
    const cli = await using({ WEBHOOK_ALLOW_PRIVATE: 'true' });
    const added = await cli([
      'add',
      'http://127.0.0.1:9/hooks',
      '--events',
      'user.deleted,user.created',
      '--description',
      'CRM',
      '--json',
    ]);
    expect(added.code, added.stderr).toBe(0);
    const endpoint = JSON.parse(added.stdout) as {
      id: string;
      url: string;
      events: string[];
      secret: string;
    };
    expect(endpoint).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      url: 'http://127.0.0.1:9/hooks',
      events: ['user.deleted', 'user.created'],
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    const plain = await cli(['add', 'http://127.0.0.1:9/all']);
    expect(plain.stdout).toMatch(
      /^Added webhook endpoint \S+ for http:\/\/127\.0\.0\.1:9\/all \(events: all\)\.\nSecret \(shown once, keep it with the receiver\): whsec_\S+\n$/,
    );
    expectOneLineFailure(
      await cli(['add', 'http://127.0.0.1:9/x', '--events', 'user.nope']),
      /^--events: user\.nope is not an event type/,
    );

    const listed = JSON.parse((await cli(['list', '--json'])).stdout) as Array<Record<string, unknown>>;
    expect(listed).toHaveLength(2);
    expect(listed[0]).toMatchObject({
      id: endpoint.id,
      description: 'CRM',
      disabled_at: null,
      events: endpoint.events,
    });
    expect(JSON.stringify(listed)).not.toContain('whsec_');
    expect((await cli(['list'])).stdout).toMatch(/^ID +URL +EVENTS +STATE +DESCRIPTION\n/);

    const rotated = JSON.parse((await cli(['rotate-secret', endpoint.id, '--json'])).stdout) as Record<
      string,
      string
    >;
    expect(rotated.secret).not.toBe(endpoint.secret);
    expect(Date.parse(rotated.previous_until ?? '') - Date.now()).toBeGreaterThan(23 * 3_600_000);

    expect((await cli(['disable', endpoint.id])).stdout).toBe(`Disabled webhook endpoint ${endpoint.id}.\n`);
    expect((await cli(['list'])).stdout).toMatch(new RegExp(`${endpoint.id} .* disabled 20`));
    expect((await cli(['enable', endpoint.id])).stdout).toBe(`Enabled webhook endpoint ${endpoint.id}.\n`);

    expect((await cli(['deliveries', endpoint.id])).stdout).toBe('No delivery attempts.\n');
    expect(JSON.parse((await cli(['deliveries', '--failed', '--json'])).stdout)).toEqual([]);
    expect((await cli(['replay', endpoint.id, '--since', '2020-01-01'])).stdout).toBe(
      `Queued 0 event(s) since 2020-01-01T00:00:00.000Z for ${endpoint.id}.\n`,
    );
    expectOneLineFailure(
      await cli(['replay', endpoint.id, '--since', 'yesterday']),
      /^--since: an ISO 8601 time/,
    );
    // An endpoint's id without --since is no event: the line says how to replay the endpoint's events.
    expectOneLineFailure(
      await cli(['replay', endpoint.id]),
      `Event ${endpoint.id} (purged, or never written) not found; to replay an endpoint's events, add --since TIME`,
    );
    const unknown = '0190a3b4-0000-7000-8000-000000000000';
    expectOneLineFailure(
      await cli(['replay', unknown]),
      `Event ${unknown} (purged, or never written) not found; to replay an endpoint's events, add --since TIME`,
    );

    expect((await cli(['remove', endpoint.id])).stdout).toBe(`Removed webhook endpoint ${endpoint.id}.\n`);
    expectOneLineFailure(await cli(['remove', endpoint.id]), `Webhook endpoint ${endpoint.id} not found`);
    expectOneLineFailure(await cli(['disable', 'nope']), 'Webhook endpoint nope not found');
  });

  it('says an endpoint is disabled because its receiver answered 410, and enables it again', async () => {
    const receiver = await WebhookReceiver.start();
    receiver.answer = () => 410;
    const env = { WEBHOOK_ALLOW_PRIVATE: 'true' };
    try {
      let cli = await using(env);
      const { id } = JSON.parse((await cli(['add', receiver.url, '--json'])).stdout) as { id: string };
      // The delivery path, as a server's pass runs it, on the database the commands let go of.
      await commands?.close();
      commands = undefined;
      const { DATABASE_URL: url, DATA_DIR: dataDir = '' } = store.env;
      const handle = await openDatabase({ url, embeddedDir: path.join(dataDir, 'pglite') });
      try {
        const config = configOnce({ PATH: process.env.PATH ?? '', ...store.env, ...env })();
        const log = { info: () => undefined, warn: () => undefined, error: () => undefined };
        const { webhookDelivery } = buildWebhooks({ config, deps: { database: handle, log } });
        await emitDeleted(handle.db);
        // The earlier tests' endpoints take every event too: only this receiver's answer matters here.
        expect((await webhookDelivery.dispatch()).released).toBe(0);
        await webhookDelivery.close();
      } finally {
        await handle.close();
      }
      expect(receiver.requests).toHaveLength(1);

      cli = await using(env);
      const listed = (await cli(['list'])).stdout;
      expect(listed).toMatch(new RegExp(`${id} .* disabled 20\\S+: receiver answered 410\\b`));
      const json = JSON.parse((await cli(['list', '--json'])).stdout) as Array<Record<string, unknown>>;
      expect(json.find((endpoint) => endpoint.id === id)).toMatchObject({ disabled_reason: 'gone' });
      expect((await cli(['enable', id])).stdout).toBe(`Enabled webhook endpoint ${id}.\n`);
      expect((await cli(['list'])).stdout).toMatch(new RegExp(`${id} .* enabled\\b`));
      expect((await cli(['disable', id])).stdout).toBe(`Disabled webhook endpoint ${id}.\n`);
      expect((await cli(['list'])).stdout).toMatch(new RegExp(`${id} .* disabled 20\\S+: by an operator\\b`));
      expect((await cli(['remove', id])).code).toBe(0);
    } finally {
      await receiver.close();
    }
  });
});
