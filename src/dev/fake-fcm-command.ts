import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startFakeFcm } from './fake-fcm.js';

export interface FakeFcmOptions {
  port: number;
  projectId: string;
  keyFile: string;
}

/**
 * `accounts dev fake-fcm`: a development FCM on 127.0.0.1 (Google's OAuth token endpoint and FCM HTTP v1
 * messages:send). Writes the service-account key file it made for this run (mode 0600), prints the
 * PUSH_TRANSPORT/FCM_* settings that point the service at it and every message it accepts; runs until
 * interrupted.
 */
export async function runFakeFcm(options: FakeFcmOptions): Promise<void> {
  const fake = await startFakeFcm({
    port: options.port,
    projectId: options.projectId,
    onMessage: (message) =>
      console.log(`message for ${message.token}: ${JSON.stringify(message.notification)}`),
  });
  const keyFile = path.resolve(options.keyFile);
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
