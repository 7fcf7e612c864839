import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { exportPKCS8, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { configError } from '../helpers/config.js';
import { writeKeyFile } from '../helpers/push.js';

describe('push configuration', () => {
  let dir: string;
  let pem: string;
  let keyFile: string;
  const key = () => ({
    type: 'service_account',
    project_id: 'accounts-prod',
    private_key: pem,
    client_email: 'push@accounts-prod.iam.gserviceaccount.com',
    token_uri: 'https://oauth2.example.com/token',
  });
  const fcm = (env: Record<string, string> = {}) => ({
    PUSH_TRANSPORT: 'fcm',
    FCM_PROJECT_ID: 'accounts-prod',
    FCM_CREDENTIALS_FILE: keyFile,
    ...env,
  });
  /** A key file with these fields changed (undefined removes one). */
  const variant = (name: string, changes: Record<string, unknown>) =>
    writeKeyFile(dir, { ...key(), ...changes }, name);

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'accounts-push-config-'));
    pem = await exportPKCS8((await generateKeyPair('RS256', { extractable: true })).privateKey);
    keyFile = await writeKeyFile(dir, key());
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('defaults to the log transport, which needs nothing else', () => {
    expect(loadConfig({}).push).toEqual({ transport: 'log' });
    expect(loadConfig({ PUSH_TRANSPORT: 'LOG', FCM_PROJECT_ID: '!' }).push).toEqual({ transport: 'log' });
    expect(configError({ PUSH_TRANSPORT: 'apns' }).message).toBe(
      'Invalid configuration: PUSH_TRANSPORT must be one of log, fcm (got "apns")',
    );
  });

  it("reads the service account for fcm, with FCM's defaults and the key file's token_uri", () => {
    const push = loadConfig(fcm()).push;
    expect(push).toMatchObject({
      transport: 'fcm',
      projectId: 'accounts-prod',
      serviceAccount: { clientEmail: 'push@accounts-prod.iam.gserviceaccount.com' },
      endpoint: 'https://fcm.googleapis.com',
      tokenUrl: 'https://oauth2.example.com/token',
      timeoutMs: 5000,
    });
    // The key is held as a KeyObject: printing the config never prints the key.
    expect(JSON.stringify(push)).not.toContain('PRIVATE KEY');
  });

  it('takes FCM_ENDPOINT, FCM_TOKEN_URL and FCM_TIMEOUT_MS, and Google’s token URL without token_uri', async () => {
    expect(
      loadConfig(
        fcm({
          FCM_ENDPOINT: 'http://127.0.0.1:9500/',
          FCM_TOKEN_URL: 'http://127.0.0.1:9500/token',
          FCM_TIMEOUT_MS: '750',
        }),
      ).push,
    ).toMatchObject({
      endpoint: 'http://127.0.0.1:9500',
      tokenUrl: 'http://127.0.0.1:9500/token',
      timeoutMs: 750,
    });
    const withoutUri = await variant('no-uri.json', { token_uri: undefined });
    expect(loadConfig(fcm({ FCM_CREDENTIALS_FILE: withoutUri })).push).toMatchObject({
      tokenUrl: 'https://oauth2.googleapis.com/token',
    });
    expect(configError(fcm({ FCM_ENDPOINT: 'ftp://fcm' })).variable).toBe('FCM_ENDPOINT');
    expect(configError(fcm({ FCM_TOKEN_URL: 'not a url' })).variable).toBe('FCM_TOKEN_URL');
    expect(configError(fcm({ FCM_TIMEOUT_MS: '0' })).variable).toBe('FCM_TIMEOUT_MS');
  });

  it('needs a project id and a key file for fcm', () => {
    expect(configError({ PUSH_TRANSPORT: 'fcm', FCM_CREDENTIALS_FILE: keyFile }).message).toBe(
      'Invalid configuration: FCM_PROJECT_ID must be set when PUSH_TRANSPORT=fcm',
    );
    expect(configError(fcm({ FCM_PROJECT_ID: 'Bad/Project' })).variable).toBe('FCM_PROJECT_ID');
    expect(configError({ PUSH_TRANSPORT: 'fcm', FCM_PROJECT_ID: 'accounts-prod' }).message).toBe(
      "Invalid configuration: FCM_CREDENTIALS_FILE must name the service account's JSON key file when " +
        'PUSH_TRANSPORT=fcm',
    );
  });

  it('refuses an unreadable or broken key file in one line, never echoing the key', async () => {
    const missing = path.join(dir, 'missing.json');
    expect(configError(fcm({ FCM_CREDENTIALS_FILE: missing })).message).toBe(
      `Invalid configuration: FCM_CREDENTIALS_FILE cannot be read (ENOENT: ${missing})`,
    );
    const notJson = path.join(dir, 'not-json.json');
    await writeFile(notJson, pem);
    const cases: [string, string][] = [
      [notJson, 'is not a JSON service-account key file'],
      [await variant('no-email.json', { client_email: undefined }), 'has no client_email'],
      [await variant('no-key.json', { private_key: undefined }), 'has no private_key'],
      [
        await variant('bad-key.json', { private_key: `${pem.slice(0, 80)}garbage` }),
        'has a private_key that is not a PEM private key',
      ],
      [await variant('bad-uri.json', { token_uri: 'javascript:alert(1)' }), 'has a token_uri that is not'],
    ];
    for (const [file, detail] of cases) {
      const error = configError(fcm({ FCM_CREDENTIALS_FILE: file }));
      expect(error.variable).toBe('FCM_CREDENTIALS_FILE');
      expect(error.message).toContain(detail);
      expect(error.message).not.toContain('PRIVATE KEY');
      expect(error.message).not.toContain(pem.split('\n')[1]);
      expect(error.message.split('\n')).toHaveLength(1);
    }
  });

  it('refuses a key that is not RSA (FCM assertions are RS256)', async () => {
    const ecPem = await exportPKCS8((await generateKeyPair('ES256', { extractable: true })).privateKey);
    const file = await variant('ec.json', { private_key: ecPem });
    expect(configError(fcm({ FCM_CREDENTIALS_FILE: file })).message).toContain(
      'has a private_key that is not an RSA key',
    );
  });
});
