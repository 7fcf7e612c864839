import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase } from '../../src/db/client.js';
import { inProcessCommands } from '../helpers/commands.js';
import { TEST_SECRETS_KEY } from '../helpers/config.js';
import { processBackend } from '../helpers/database.js';
import { startService } from '../helpers/process.js';
import { type ProcessStore, processStore } from '../helpers/process-store.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { deliveriesOf, emitDeleted } from '../helpers/webhooks.js';

describe(`${processBackend}: a service killed mid-delivery`, () => {
  let store: ProcessStore;
  let receiver: WebhookReceiver;

  /** The suite's database, opened while no service holds it (the embedded one is one process's). */
  const withDatabase = async <T>(work: (handle: DatabaseHandle) => Promise<T>): Promise<T> => {
    const { DATABASE_URL: url, DATA_DIR: dataDir = '' } = store.env;
    const handle = await openDatabase({ url, embeddedDir: path.join(dataDir, 'pglite') });
    try {
      return await work(handle);
    } finally {
      await handle.close();
    }
  };

  beforeAll(async () => {
    store = await processStore(
      processBackend,
      {
        SECRETS_KEY: TEST_SECRETS_KEY,
        WEBHOOK_ALLOW_PRIVATE: 'true',
      },
      { migrated: true },
    );
    receiver = await WebhookReceiver.start();
  });
  afterAll(async () => {
    await receiver?.close();
    await store?.cleanup();
  });

  it('delivers after its restart, with the same webhook-id', async () => {
    const commands = inProcessCommands(store.env);
    const added = await commands.run(['webhook', 'add', receiver.url, '--json']);
    await commands.close();
    receiver.secrets = [(JSON.parse(added.stdout) as { secret: string }).secret];
    const eventId = await withDatabase((handle) => emitDeleted(handle.db));

    // The first attempt never gets an answer: the service dies holding its lease.
    receiver.answer = () => () => undefined;
    const first = await startService(store.env);
    const [held] = await receiver.received(1);
    expect(await first.stop('SIGKILL')).toBeNull();

    // The lease (a minute) runs out: moved in the database instead of waited for.
    const pending = await withDatabase(async (handle) => {
      const rows = await handle.db.selectFrom('webhook_deliveries').select(['attempts', 'lease']).execute();
      await sql`UPDATE webhook_deliveries SET next_attempt_at = now()`.execute(handle.db);
      return rows;
    });
    expect(pending).toEqual([{ attempts: 0, lease: expect.any(String) }]);

    receiver.answer = () => 200;
    const second = await startService(store.env);
    try {
      const [, again] = await receiver.received(2);
      expect([held?.id, again?.id]).toEqual([eventId, eventId]);
      expect(again?.verifiedBy).toEqual([true]);
    } finally {
      expect(await second.stop()).toBe(0);
    }
    const delivered = await withDatabase((handle) => deliveriesOf(handle.db, eventId));
    expect(delivered).toMatchObject([{ status: 'delivered', attempts: 1, last_status_code: 200 }]);
  });
});
