import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { unique } from './factories.js';
import { expectError, expectOk } from './http.js';

/** Requests from a chosen client address, and the 429 they run into: for the suites of per-IP limits. */

let lastIp = 0;
/** A fresh client address per use, so tests sharing an app never share a per-IP counter. */
export function newIp(): string {
  lastIp += 1;
  return `10.${(lastIp >> 16) & 255}.${(lastIp >> 8) & 255}.${lastIp & 255}`;
}

/** A fresh IPv6 /64 prefix per use (its first four groups), drawn from the same counter as `newIp`. */
export function newIpv6Prefix(): string {
  lastIp += 1;
  return `2001:db8:${(lastIp - 1).toString(16)}:${lastIp.toString(16)}`;
}

export function post(app: FastifyInstance, url: string, body: Record<string, string>, ip: string) {
  return app.inject({
    method: 'POST',
    url,
    remoteAddress: ip,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(body).toString(),
  });
}

/** Asserts the whole 429 envelope, and that the header and the body name the same wait, within the window. */
export function expectTooManyRequests(res: LightMyRequestResponse, windowSeconds: number): void {
  expect(res.statusCode, res.body).toBe(429);
  const retryAfter = res.json().data.retry_after;
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(windowSeconds);
  expectError(res, 429, 'TooManyRequestsHttpException', 'Too Many Attempts.', { retry_after: retryAfter });
  expect(res.headers['retry-after']).toBe(String(retryAfter));
}

export interface Account {
  email: string;
  password: string;
  token: string;
}

export async function signUp(app: FastifyInstance): Promise<Account> {
  const id = unique();
  const account = { email: `limit${id}@example.com`, password: `Sturdy-Passphrase-${id}` };
  const res = await post(
    app,
    '/v1/auth/register',
    { type: 'email', username: `limit${id}`, gender: '1', user_agreement: 'on', ...account },
    newIp(),
  );
  const { user } = expectOk<{ user: { api_token: string } }>(res);
  return { ...account, token: user.api_token };
}

export function login(app: FastifyInstance, email: string, password: string, ip: string) {
  return post(app, '/v1/auth/login/email', { email, password }, ip);
}
