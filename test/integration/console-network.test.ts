import { describe, expect, it } from 'vitest';
import { backends } from '../helpers/database.js';
import { expectError, expectOk, UNAUTHENTICATED } from '../helpers/http.js';
import { codeOf, enrolledStaff, staffLogin, testClock, useConsoleApp } from '../helpers/staff.js';

// Behind a trusted proxy: the client's address is its X-Forwarded-For, the scheme its X-Forwarded-Proto.
describe.each(backends)('%s: CONSOLE_ALLOWED_NETWORKS behind a proxy, and the sign-in limit', (backend) => {
  const clock = testClock();
  const ctx = useConsoleApp(backend, clock, {
    CONSOLE_ALLOWED_NETWORKS: '10.0.0.0/8, 2001:db8::/32',
    TRUST_PROXY: '127.0.0.1',
    RATE_LIMIT_ENABLED: 'true',
    RATE_LIMIT_LOGIN_IP: '3/15m',
  });
  const me = (headers: Record<string, string> = {}, remoteAddress?: string) =>
    ctx.app.inject({
      method: 'GET',
      url: '/admin/v1/me',
      headers,
      ...(remoteAddress ? { remoteAddress } : {}),
    });
  const refused = [
    'AccessDeniedHttpException',
    'Staff may not sign in from this network.',
    { status: 'network_refused' },
  ] as const;

  it('answers the admin API only inside the allowed networks', async () => {
    expectError(await me(), 403, ...refused);
    expectError(await me({ 'x-forwarded-for': '8.8.8.8' }), 403, ...refused);
    expectError(await me({ 'x-forwarded-for': '10.20.30.40' }), 401, ...UNAUTHENTICATED);
    expectError(await me({}, '11.0.0.1'), 403, ...refused);
    expectError(await me({}, '10.20.30.40'), 401, ...UNAUTHENTICATED);
    expectError(await me({}, '::ffff:10.1.1.1'), 401, ...UNAUTHENTICATED);
    expectError(await me({}, '2001:db8::7'), 401, ...UNAUTHENTICATED);
    expectError(await me({}, '2001:db9::7'), 403, ...refused);
    // The app's API is not the console's: it answers from anywhere.
    expect((await ctx.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });

  it('makes the cookie Secure behind https, and counts sign-ins and enrollments on the per-IP login limit', async () => {
    const office = { 'x-forwarded-for': '10.0.0.9' };
    // The enrollment's POST is the address's first count.
    const member = await enrolledStaff(ctx, clock, 'viewer', office);
    const res = await staffLogin(ctx.app, member, codeOf(member.secret, clock), member.password, {
      ...office,
      'x-forwarded-proto': 'https',
    });
    expectOk(res);
    expect(res.headers['set-cookie']).toMatch(
      /; Path=\/admin; HttpOnly; SameSite=Strict; Max-Age=43200; Secure$/,
    );
    expectError(
      await staffLogin(ctx.app, member, '000000', 'wrong pass phrase', office),
      401,
      'Unauthorized',
      'The login credentials are invalid.',
      {
        status: 'authentication_failed',
      },
    );
    const limited = await staffLogin(ctx.app, member, '000000', 'wrong pass phrase', office);
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ meta: { code: 429, error_type: 'TooManyRequestsHttpException' } });
  });
});
