import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { exportPKCS8, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PushConfig, parsePush } from '../../src/config/push.js';
import { type FakeFcm, startFakeFcm } from '../../src/dev/fake-fcm.js';
import { AccessTokenError, FcmAccessTokens } from '../../src/push/fcm-access-token.js';
import { FcmPushTransport } from '../../src/push/fcm-transport.js';
import { writeKeyFile } from '../helpers/push.js';

type FcmConfig = Extract<PushConfig, { transport: 'fcm' }>;

/** The service's own side of FCM (token cache and transport) against the fake, with a clock the test moves. */
describe('FCM access tokens and the FCM transport, against the fake FCM', () => {
  let fcm: FakeFcm;
  let dir: string;
  let config: FcmConfig;
  let now = 1_700_000_000_000;
  const clock = () => now;

  const configFor = async (key: unknown, name: string): Promise<FcmConfig> =>
    parsePush({
      ...fcm.env(await writeKeyFile(dir, key, name)),
      FCM_TIMEOUT_MS: '10000',
    }) as FcmConfig;

  const tokensFor = (settings: FcmConfig, overrides: { tokenUrl?: string } = {}) =>
    new FcmAccessTokens({
      serviceAccount: settings.serviceAccount,
      tokenUrl: overrides.tokenUrl ?? settings.tokenUrl,
      timeoutMs: settings.timeoutMs,
      now: clock,
    });

  const logLines: { details: Record<string, unknown>; message: string }[] = [];
  const collect = (details: object, message: string) =>
    logLines.push({ details: details as Record<string, unknown>, message });
  const log = { info: collect, warn: collect, error: collect };

  const message = (pushToken: string) => ({
    userId: 'user-1',
    deviceId: 'phone',
    pushToken,
    payload: { title: 'Hi', body: 'There', data: { type: 'test_notification' } },
  });

  beforeAll(async () => {
    fcm = await startFakeFcm({ projectId: 'accounts-token-test' });
    dir = await mkdtemp(path.join(tmpdir(), 'accounts-fcm-token-'));
    config = await configFor(fcm.serviceAccountKey, 'good.json');
  });
  afterAll(async () => {
    await fcm.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("takes the token URL from the key file's token_uri", () => {
    expect(config.tokenUrl).toBe(fcm.tokenUrl);
  });

  it('reuses a token until shortly before it expires, then signs a new assertion for a new one', async () => {
    const tokens = tokensFor(config);
    const issued = fcm.tokensIssued;
    const first = await tokens.get();
    now += 3000 * 1000;
    expect(await tokens.get()).toBe(first);
    expect(fcm.tokensIssued).toBe(issued + 1);
    // 3600 s tokens are renewed 60 s early: at 3540 s this one is stale.
    now += 540 * 1000;
    const second = await tokens.get();
    expect(second).not.toBe(first);
    expect(fcm.tokensIssued).toBe(issued + 2);
  });

  it('keeps a short-lived token for half its life', async () => {
    fcm.setTokenLifetime(10);
    try {
      const tokens = tokensFor(config);
      const first = await tokens.get();
      now += 4999;
      expect(await tokens.get()).toBe(first);
      now += 1;
      expect(await tokens.get()).not.toBe(first);
    } finally {
      fcm.setTokenLifetime(3600);
    }
  });

  it('makes one exchange for many concurrent callers', async () => {
    const tokens = tokensFor(config);
    const issued = fcm.tokensIssued;
    const all = await Promise.all(Array.from({ length: 10 }, () => tokens.get()));
    expect(new Set(all).size).toBe(1);
    expect(fcm.tokensIssued).toBe(issued + 1);
  });

  it('forgets a refused token only when it is still the cached one', async () => {
    const tokens = tokensFor(config);
    const first = await tokens.get();
    tokens.invalidate('some-older-token');
    expect(await tokens.get()).toBe(first);
    tokens.invalidate(first);
    expect(await tokens.get()).not.toBe(first);
  });

  it('is refused by the token endpoint when the key is not the service account’s, and the send fails', async () => {
    const { privateKey } = await generateKeyPair('RS256', { extractable: true });
    const forged = await configFor(
      { ...fcm.serviceAccountKey, private_key: await exportPKCS8(privateKey) },
      'forged.json',
    );
    const tokens = tokensFor(forged);
    const refusal = 'The FCM token endpoint refused our service account (HTTP 400 invalid_grant).';
    await expect(tokens.get()).rejects.toEqual(new AccessTokenError(refusal));
    const transport = new FcmPushTransport(forged, tokens, log);
    expect(await transport.send(message('fcm-anything'))).toEqual({ status: 'failed', error: refusal });
    // The next call tries again rather than remembering the failure.
    await expect(tokens.get()).rejects.toBeInstanceOf(AccessTokenError);
  });

  it('reports an unreachable token endpoint or FCM as a failed send, never a throw', async () => {
    const unreachable = 'http://127.0.0.1:1';
    const noTokens = new FcmPushTransport(
      config,
      tokensFor(config, { tokenUrl: `${unreachable}/token` }),
      log,
    );
    expect(await noTokens.send(message('fcm-anything'))).toEqual({
      status: 'failed',
      error: 'The FCM token endpoint could not be reached.',
    });
    const noFcm = new FcmPushTransport({ ...config, endpoint: unreachable }, tokensFor(config), log);
    expect(await noFcm.send(message('fcm-anything'))).toEqual({
      status: 'failed',
      error: 'FCM could not be reached.',
    });
  });

  it('logs an undelivered push with a short prefix of its token, never the token', async () => {
    const pushToken = `fcm-secret-${'y'.repeat(40)}`;
    fcm.behave('server-error', pushToken);
    logLines.length = 0;
    const transport = new FcmPushTransport(config, tokensFor(config), log);
    expect(await transport.send(message(pushToken))).toEqual({
      status: 'failed',
      error: 'FCM is unavailable (HTTP 500 INTERNAL).',
    });
    expect(logLines).toEqual([
      {
        message: 'push via FCM not delivered',
        details: {
          userId: 'user-1',
          deviceId: 'phone',
          pushToken: 'fcm-se…',
          result: 'failed',
          reason: 'FCM is unavailable (HTTP 500 INTERNAL).',
        },
      },
    ]);
    expect(JSON.stringify(logLines)).not.toContain(pushToken);
  });
});
