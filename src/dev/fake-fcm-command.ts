import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startFakeFcm } from './fake-fcm.js';

export const FAKE_FCM_USAGE = `Usage: accounts dev fake-fcm [--port 9500] [--project-id accounts-dev] [--key-file fake-fcm-key.json]

Starts a development FCM on 127.0.0.1 (Google's OAuth token endpoint and FCM HTTP v1 messages:send), writes the
service-account key file it made for this run (mode 0600) and prints the PUSH_TRANSPORT/FCM_* settings that point
the service at it. Every message it accepts is printed.`;

/** `accounts dev fake-fcm`: runs until interrupted. */
export async function runFakeFcm(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: 'string', default: '9500' },
      'project-id': { type: 'string', default: 'accounts-dev' },
      'key-file': { type: 'string', default: 'fake-fcm-key.json' },
    },
    strict: true,
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`--port must be 0-65535 (got "${values.port}")`);
  const fake = await startFakeFcm({
    port,
    projectId: values['project-id'],
    onMessage: (message) =>
      console.log(`message for ${message.token}: ${JSON.stringify(message.notification)}`),
  });
  const keyFile = path.resolve(values['key-file']);
  // A key made for this run, but a private key all the same: readable by its owner only.
  await writeFile(keyFile, JSON.stringify(fake.serviceAccountKey, null, 2), { mode: 0o600 });
  const lines = Object.entries(fake.env(keyFile)).map(([variable, value]) => `${variable}=${value}`);
  console.log(`Fake FCM listening on ${fake.url} (development only); its key file is ${keyFile}.

Start the service with these lines in its environment (save them as fcm.env; set -a; . ./fcm.env; set +a; npm start):

${lines.join('\n')}

Register a device with a push token, then POST /v1/test/notification: the messages appear here.
Ctrl-C stops it.`);
  await new Promise<void>((resolve) => {
    const stop = () => {
      void fake.close().then(resolve);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
