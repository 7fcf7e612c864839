import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll } from 'vitest';
import { type FakeFcm, startFakeFcm } from '../../src/dev/fake-fcm.js';
import { closeTestApp, createTestApp, type TestApp } from './app.js';
import type { Backend } from './database.js';
import { bearer } from './factories.js';
import { expectOk, postForm } from './http.js';

export interface Delivery {
  device_id: string;
  status: 'sent' | 'failed' | 'skipped';
  error: string | null;
}

/** Calls test/notification (POST by default) with this token and returns the raw response. */
export function requestTestNotification(
  app: FastifyInstance,
  token: string | undefined,
  options: { method?: 'GET' | 'POST'; version?: string; headers?: Record<string, string> } = {},
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: options.method ?? 'POST',
    url: `/${options.version ?? 'v1'}/test/notification`,
    headers: { ...(token ? bearer(token) : {}), ...options.headers },
  });
}

/** test/notification's deliveries, asserting a 200 envelope. */
export async function sendTestNotification(
  app: FastifyInstance,
  token: string,
  options: Parameters<typeof requestTestNotification>[2] = {},
): Promise<Delivery[]> {
  return expectOk<{ deliveries: Delivery[] }>(await requestTestNotification(app, token, options)).deliveries;
}

/** Registers (or updates) a device of the token's user through user/device/update. */
export async function registerDevice(
  app: FastifyInstance,
  token: string,
  fields: Record<string, string>,
): Promise<void> {
  expectOk(await postForm(app, '/v1/user/device/update', fields, bearer(token)));
}

/** The push token of each of the user's devices, by device_id, as user/device/get reports them. */
export async function pushTokens(
  app: FastifyInstance,
  token: string,
): Promise<Record<string, string | null>> {
  const { devices } = expectOk<{ devices: { device_id: string; push_token: string | null }[] }>(
    await app.inject({ method: 'GET', url: '/v1/user/device/get', headers: bearer(token) }),
  );
  return Object.fromEntries(devices.map((device) => [device.device_id, device.push_token]));
}

/** Writes a service-account key file (made at test time: no key is committed) and returns its path. */
export async function writeKeyFile(
  dir: string,
  key: unknown,
  name = 'service-account.json',
): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, JSON.stringify(key), { mode: 0o600 });
  return file;
}

export interface FcmTestApp extends TestApp {
  fcm: FakeFcm;
}

/**
 * A fake FCM and an app with PUSH_TRANSPORT=fcm pointed at it (its key file in a temp dir), for the enclosing
 * describe block. FCM_TIMEOUT_MS is generous (the machine may be busy); a stall test sets a smaller one.
 */
export function useFcmApp(backend: Backend, env: Record<string, string> = {}): FcmTestApp {
  const ctx = {} as FcmTestApp;
  let keyDir = '';
  beforeAll(async () => {
    ctx.fcm = await startFakeFcm({ projectId: 'accounts-test' });
    keyDir = await mkdtemp(path.join(tmpdir(), 'accounts-fcm-key-'));
    const keyFile = await writeKeyFile(keyDir, ctx.fcm.serviceAccountKey);
    Object.assign(
      ctx,
      await createTestApp(backend, { ...ctx.fcm.env(keyFile), FCM_TIMEOUT_MS: '10000', ...env }),
    );
  });
  afterAll(async () => {
    if (ctx.app) await closeTestApp(ctx);
    await ctx.fcm?.close();
    await rm(keyDir, { recursive: true, force: true });
  });
  return ctx;
}
