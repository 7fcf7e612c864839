import { describe, expect, it } from 'vitest';
import { backends } from '../helpers/database.js';
import { expectError, expectOk, expectValidationError } from '../helpers/http.js';
import { buildTestServices } from '../helpers/services.js';
import {
  addStaff,
  codeOf,
  enrolledStaff,
  FROM_CONSOLE,
  signedInStaff,
  staffLogin,
  testClock,
  useConsoleApp,
} from '../helpers/staff.js';

const INVALID = [
  'Unauthorized',
  'The login credentials are invalid.',
  { status: 'authentication_failed' },
] as const;
const UNAUTHENTICATED = [
  'AuthenticationException',
  'Unauthenticated.',
  { status: 'unauthenticated' },
] as const;

describe.each(backends)('%s: staff enrollment and sign-in', (backend) => {
  const clock = testClock();
  const ctx = useConsoleApp(backend, clock);

  const enrollment = (token: string) =>
    ctx.app.inject({ method: 'GET', url: `/admin/v1/enrollment?token=${token}` });
  const enroll = (payload: Record<string, string>) =>
    ctx.app.inject({ method: 'POST', url: '/admin/v1/enrollment', headers: FROM_CONSOLE, payload });
  const me = (headers: Record<string, string>) =>
    ctx.app.inject({ method: 'GET', url: '/admin/v1/me', headers });

  it('enrolls a password and an authenticator on a one-time link; the link used again answers that it is used', async () => {
    const added = await addStaff(ctx, 'support');
    expect(added.enrollment_url).toMatch(
      /^http:\/\/localhost:8080\/console\/enroll\?token=[A-Za-z0-9_-]{43}$/,
    );
    const view = expectOk<{ totp_secret: string; otpauth_url: string }>(await enrollment(added.token));
    expect(view).toEqual({
      email: added.email,
      role: 'support',
      totp_secret: expect.stringMatching(/^[A-Z2-7]{32}$/),
      otpauth_url: expect.stringMatching(/^otpauth:\/\/totp\//),
    });
    // The same secret until the enrollment is done: a page opened twice shows one authenticator.
    expect(expectOk(await enrollment(added.token))).toEqual(view);
    const payload = {
      token: added.token,
      password: 'a staff pass phrase',
      code: codeOf(view.totp_secret, clock),
    };
    expect(expectOk(await enroll(payload))).toEqual({ status: 'enrolled' });

    const used = [
      'GoneHttpException',
      'This enrollment link has been used.',
      { status: 'enrollment_used' },
    ] as const;
    expectError(await enrollment(added.token), 410, ...used);
    expectError(await enroll(payload), 410, ...used);
  });

  it('refuses a wrong code, a common password, an unknown link and an expired one', async () => {
    const added = await addStaff(ctx, 'viewer');
    const { totp_secret } = expectOk<{ totp_secret: string }>(await enrollment(added.token));
    const wrong = codeOf(totp_secret, clock, 5);
    expectValidationError(
      await enroll({ token: added.token, password: 'a staff pass phrase', code: wrong }),
      {
        code: ['The code is invalid.'],
      },
    );
    expectValidationError(
      await enroll({ token: added.token, password: 'password', code: codeOf(totp_secret, clock) }),
      {
        password: ['The password is too common.'],
      },
    );
    expectValidationError(await enrollment('no-such-token'), { token: ['The selected token is invalid.'] });
    const late = await addStaff(ctx, 'viewer');
    clock.advance(24 * 3_600_000);
    expectError(await enrollment(late.token), 410, 'GoneHttpException', 'This enrollment link has expired.', {
      status: 'enrollment_expired',
    });
  });

  it('signs in with the password and a code, setting a strict cookie scoped to /admin', async () => {
    const member = await enrolledStaff(ctx, clock, 'support');
    const res = await staffLogin(ctx.app, member, codeOf(member.secret, clock));
    const data = expectOk<{ csrf_token: string }>(res);
    expect(data).toEqual({
      staff: { id: member.id, email: member.email, role: 'support' },
      permissions: ['users.read', 'users.unmask', 'users.export', 'users.act', 'content.read'],
      csrf_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    expect(res.headers['set-cookie']).toMatch(
      /^accounts_staff=[A-Za-z0-9_-]{43}; Path=\/admin; HttpOnly; SameSite=Strict; Max-Age=43200$/,
    );
    const cookie = String(res.headers['set-cookie']).split(';')[0] as string;
    expect(expectOk(await me({ cookie }))).toEqual(data);
  });

  it('never signs in without both: a wrong code, a wrong password, a reused code, a member not enrolled', async () => {
    const member = await enrolledStaff(ctx, clock, 'viewer');
    const code = codeOf(member.secret, clock);
    expectError(await staffLogin(ctx.app, member, codeOf(member.secret, clock, 9)), 401, ...INVALID);
    expectError(await staffLogin(ctx.app, member, code, 'not the pass phrase'), 401, ...INVALID);
    expectOk(await staffLogin(ctx.app, member, code));
    // The same code again (a replay): refused, one use per time step, but not counted as a guess.
    for (let attempt = 1; attempt <= 5; attempt++) {
      expectError(await staffLogin(ctx.app, member, code), 401, ...INVALID);
    }
    expectOk(await staffLogin(ctx.app, member, codeOf(member.secret, clock, 1)));
    const invited = await addStaff(ctx, 'admin');
    expectError(
      await ctx.app.inject({
        method: 'POST',
        url: '/admin/v1/auth/login',
        headers: FROM_CONSOLE,
        payload: { email: invited.email, password: 'anything at all', code: '123456' },
      }),
      401,
      ...INVALID,
    );
  });

  it('locks the account at the fifth wrong password or code in a row, until CONSOLE_LOCKOUT or an unlock', async () => {
    // Locked or not, a refusal is the one a wrong try gets: a lockout of its own would tell whoever tried five
    // passwords for an address that it is a member's.
    const member = await enrolledStaff(ctx, clock, 'content');
    for (let attempt = 1; attempt <= 4; attempt++) {
      expectError(
        await staffLogin(ctx.app, member, codeOf(member.secret, clock), 'wrong pass phrase'),
        401,
        ...INVALID,
      );
    }
    expectError(await staffLogin(ctx.app, member, codeOf(member.secret, clock, 7)), 401, ...INVALID);
    // Locked: the right password and code change nothing.
    expectError(await staffLogin(ctx.app, member, codeOf(member.secret, clock)), 401, ...INVALID);
    clock.advance(29 * 60_000);
    expectError(await staffLogin(ctx.app, member, codeOf(member.secret, clock)), 401, ...INVALID);
    clock.advance(60_000);
    expectOk(await staffLogin(ctx.app, member, codeOf(member.secret, clock)));

    const other = await enrolledStaff(ctx, clock, 'content');
    for (let attempt = 1; attempt <= 5; attempt++) {
      await staffLogin(ctx.app, other, codeOf(other.secret, clock), 'wrong pass phrase');
    }
    expectError(await staffLogin(ctx.app, other, codeOf(other.secret, clock)), 401, ...INVALID);
    expect((await buildTestServices(ctx).staff.unlock(other.email, 'cli:test')).state).toBe('active');
    expectOk(await staffLogin(ctx.app, other, codeOf(other.secret, clock)));
  });

  it('ends a session idle for CONSOLE_IDLE_TIMEOUT, and any session 12 hours after its sign-in', async () => {
    const member = await enrolledStaff(ctx, clock, 'viewer');
    const session = await signedInStaff(ctx, clock, member);
    clock.advance(29 * 60_000);
    expectOk(await me(session));
    clock.advance(29 * 60_000);
    expectOk(await me(session));
    clock.advance(30 * 60_000);
    expectError(await me(session), 401, ...UNAUTHENTICATED);

    const busy = await signedInStaff(ctx, clock, member);
    // Never idle, 700 minutes after the sign-in; then past the twelfth hour.
    for (let step = 0; step < 28; step++) {
      clock.advance(25 * 60_000);
      expectOk(await me(busy));
    }
    clock.advance(20 * 60_000);
    expectError(await me(busy), 401, ...UNAUTHENTICATED);
  });

  it('signs out: the session no longer works and the cookie is cleared', async () => {
    const member = await enrolledStaff(ctx, clock, 'viewer');
    const session = await signedInStaff(ctx, clock, member);
    const res = await ctx.app.inject({ method: 'POST', url: '/admin/v1/auth/logout', headers: session });
    expect(expectOk(res)).toEqual({ status: 'signed_out' });
    expect(res.headers['set-cookie']).toBe(
      'accounts_staff=; Path=/admin; HttpOnly; SameSite=Strict; Max-Age=0',
    );
    expectError(await me(session), 401, ...UNAUTHENTICATED);
  });
});
