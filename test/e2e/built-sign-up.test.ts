import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningService, startService } from '../helpers/process.js';

/**
 * The built service, as `npm start` runs it, through a sign-up and a login. Vitest loads modules its own way
 * (a CommonJS package's default import, for one, is not what Node gives): a path that only ever ran under
 * Vitest can pass every other suite and still fail in production, as the common-password check once did.
 */
let scratch: string;
let service: RunningService;

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'accounts-built-'));
  service = await startService({
    DATA_DIR: scratch,
    RATE_LIMIT_ENABLED: 'false',
    ARGON2_MEMORY_KIB: '1024',
    ARGON2_TIME_COST: '1',
  });
}, 600_000);
afterAll(async () => {
  await service?.stop();
  await rm(scratch, { recursive: true, force: true });
});

function post(route: string, fields: Record<string, string>): Promise<Response> {
  return fetch(`${service.url}${route}`, { method: 'POST', body: new URLSearchParams(fields) });
}

const account = {
  type: 'email',
  email: 'built@example.com',
  username: 'builtuser',
  gender: '1',
  user_agreement: 'on',
  password: 'Sturdy-Passphrase-1937',
};

describe('the built service (node dist/main.js serve)', () => {
  it('refuses a common password, signs up, and logs in with the new account', async () => {
    const common = await post('/v1/auth/register', { ...account, password: 'zzzzzzzz' });
    expect(common.status).toBe(422);
    expect(await common.json()).toMatchObject({ data: { password: ['The password is too common.'] } });

    const signedUp = await post('/v1/auth/register', account);
    expect(signedUp.status).toBe(200);
    const created = (await signedUp.json()) as { data: { user: { email: string; api_token: string } } };
    expect(created.data.user.email).toBe(account.email);
    expect(created.data.user.api_token).toMatch(/\S{20,}/);

    const login = await post('/v1/auth/login/email', { email: account.email, password: account.password });
    expect(login.status).toBe(200);
    expect(await login.json()).toMatchObject({
      meta: { code: 200 },
      data: { user: { username: 'builtuser' } },
    });
  });
});
