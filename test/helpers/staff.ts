import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, expect } from 'vitest';
import { closeTestApp, createTestApp, type TestApp } from './app.js';
import type { Backend } from './database.js';
import { expectOk } from './http.js';
import { buildTestServices } from './services.js';
import { base32Decode, totpCode } from './totp.js';

/** The console's clock in a test: real time plus what the test has moved it by. */
export interface TestClock {
  now: () => number;
  advance(ms: number): void;
}

export function testClock(): TestClock {
  let offset = 0;
  return {
    now: () => Date.now() + offset,
    advance: (ms) => {
      offset += ms;
    },
  };
}

/** A test app whose staff console runs on `clock` (sessions, lockouts and TOTP steps alike). */
export function useConsoleApp(backend: Backend, clock: TestClock, env: Record<string, string> = {}): TestApp {
  const ctx = {} as TestApp;
  beforeAll(async () => {
    Object.assign(ctx, await createTestApp(backend, env, { now: clock.now }));
  });
  afterAll(async () => {
    if (ctx.app) await closeTestApp(ctx);
    expect(ctx.responseMismatches ?? []).toEqual([]);
  });
  return ctx;
}

/** What a request of the console's pages carries without a session (sign-in, enrollment). */
export const FROM_CONSOLE = { 'x-requested-with': 'accounts-web' } as const;

export interface EnrolledStaff {
  id: string;
  email: string;
  password: string;
  secret: string;
}

/** The headers of a signed-in request of the console: the cookie and the CSRF token. */
export type StaffSessionHeaders = Record<'cookie' | 'x-csrf-token', string>;

let serial = 0;

/** A new staff member's email, unique in the run. */
export function staffEmail(): string {
  serial += 1;
  return `staff${serial}-${process.pid}-${Date.now()}@example.com`;
}

/** The code of the authenticator `secret` at the console clock's now, `steps` time steps away. */
export function codeOf(secret: string, clock: TestClock, steps = 0): string {
  return totpCode(base32Decode(secret), Math.floor(clock.now() / 1000) + steps * 30);
}

/** Adds a member as `accounts staff add` does; returns the link's token. */
export async function addStaff(ctx: TestApp, role: string, email = staffEmail()) {
  const added = await buildTestServices(ctx).staff.add(email, role, 'cli:test');
  return { ...added, token: new URL(added.enrollment_url).searchParams.get('token') as string };
}

/** Adds and enrolls a member through the admin API; the clock moves past the enrollment code's step. */
export async function enrolledStaff(
  ctx: TestApp,
  clock: TestClock,
  role: string,
  /** Sent with each request too (a proxy's X-Forwarded-For). */
  headers: Record<string, string> = {},
): Promise<EnrolledStaff> {
  const added = await addStaff(ctx, role);
  const view = expectOk<{ totp_secret: string }>(
    await ctx.app.inject({ method: 'GET', url: `/admin/v1/enrollment?token=${added.token}`, headers }),
  );
  const password = 'a staff pass phrase';
  expectOk(
    await ctx.app.inject({
      method: 'POST',
      url: '/admin/v1/enrollment',
      headers: { ...FROM_CONSOLE, ...headers },
      payload: { token: added.token, password, code: codeOf(view.totp_secret, clock) },
    }),
  );
  clock.advance(30_000);
  return { id: added.id, email: added.email, password, secret: view.totp_secret };
}

export function staffLogin(
  app: FastifyInstance,
  member: EnrolledStaff,
  code: string,
  password = member.password,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: '/admin/v1/auth/login',
    headers: { ...FROM_CONSOLE, ...headers },
    payload: { email: member.email, password, code },
  });
}

/** The staff cookie a sign-in set. */
export function staffCookieOf(res: LightMyRequestResponse): string {
  const header = String(res.headers['set-cookie'] ?? '');
  const token = /accounts_staff=([^;]*)/.exec(header)?.[1];
  if (!token) throw new Error(`no staff cookie in ${header}`);
  return `accounts_staff=${token}`;
}

/** Signs the member in (the clock then moves on a step, so the next sign-in has a fresh code). */
export async function signedInStaff(
  ctx: TestApp,
  clock: TestClock,
  member: EnrolledStaff,
): Promise<StaffSessionHeaders> {
  const res = await staffLogin(ctx.app, member, codeOf(member.secret, clock));
  const data = expectOk<{ csrf_token: string }>(res);
  clock.advance(30_000);
  return { cookie: staffCookieOf(res), 'x-csrf-token': data.csrf_token };
}
