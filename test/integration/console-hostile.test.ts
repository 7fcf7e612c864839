import type { LightMyRequestResponse } from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PasswordHasher } from '../../src/lib/passwords.js';
import { permissionsOf, staffRoles } from '../../src/modules/staff/permissions.js';
import { backends } from '../helpers/database.js';
import { bearer, registerUser } from '../helpers/factories.js';
import { expectError, expectOk, UNAUTHENTICATED } from '../helpers/http.js';
import { buildTestServices } from '../helpers/services.js';
import {
  addStaff,
  codeOf,
  enrolledStaff,
  FROM_CONSOLE,
  signedInStaff,
  staffCookieOf,
  staffLogin,
  testClock,
  useConsoleApp,
} from '../helpers/staff.js';

const CSRF = [
  'AccessDeniedHttpException',
  'The CSRF token is missing or wrong.',
  { status: 'csrf_token_invalid' },
] as const;
const INVALID = [
  'Unauthorized',
  'The login credentials are invalid.',
  { status: 'authentication_failed' },
] as const;
const CROSS_SITE = { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } as const;
const SOME_ID = '019ad0c4-5e20-7b4c-9d1e-2f3a4b5c6d7e';

interface Operation {
  method: 'GET' | 'POST';
  url: string;
  signedIn: boolean;
  permission: string | undefined;
}

/**
 * An attacker's pass over every endpoint of the admin API, read from its own document: a new endpoint is
 * covered by being documented (console-boundaries checks that every admin route is).
 */
describe.each(backends)('%s: the admin API against a hostile client', (backend) => {
  const clock = testClock();
  const ctx = useConsoleApp(backend, clock, { BODY_LIMIT: '4kb' });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  const operations = async (): Promise<Operation[]> => {
    type Document = {
      paths: Record<string, Record<string, { security: unknown[]; 'x-permission'?: string }>>;
    };
    const document = (await ctx.app.inject({ method: 'GET', url: '/admin/openapi.json' })).json() as Document;
    const found = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({
        method: method.toUpperCase() as Operation['method'],
        url: `/admin/v1${path.replace(/\{\w+\}/g, SOME_ID)}`,
        signedIn: operation.security.length > 0,
        permission: operation['x-permission'],
      })),
    );
    // The document is read, not empty: the list below really runs over the endpoints.
    expect(
      found.filter((operation) => operation.signedIn && operation.method === 'POST').length,
    ).toBeGreaterThan(10);
    return found;
  };
  const send = (operation: Operation, headers: Record<string, string>, payload = {}) =>
    ctx.app.inject({
      method: operation.method,
      url: operation.url,
      headers,
      ...(operation.method === 'POST' ? { payload } : {}),
    });
  /** The operations that did not answer with the error envelope expected: empty when every one did. */
  const unexpected = async (
    list: Operation[],
    [code, errorType, message, data]: readonly [number, string, string, unknown],
    ask: (operation: Operation) => Promise<LightMyRequestResponse>,
  ) => {
    const expected = JSON.stringify({ meta: { code, error_type: errorType, error_message: message }, data });
    const wrong: string[] = [];
    for (const operation of list) {
      const res = await ask(operation);
      if (res.statusCode !== code || res.body !== expected) {
        wrong.push(`${operation.method} ${operation.url}: ${res.statusCode} ${res.body}`);
      }
    }
    return wrong;
  };

  it('takes no other credential than a live staff session on any signed-in endpoint', async () => {
    const staffOnly = (await operations()).filter((operation) => operation.signedIn);
    const user = await registerUser(ctx.app);
    const member = await enrolledStaff(ctx, clock, 'admin');
    const ended = await signedInStaff(ctx, clock, member);
    expectOk(await ctx.app.inject({ method: 'POST', url: '/admin/v1/auth/logout', headers: ended }));
    // None, the app's token where the app takes it, the app's token as a staff cookie, a signed-out session.
    const credentials: Record<string, string>[] = [
      {},
      bearer(user.token),
      { cookie: `accounts_staff=${user.token}` },
      ended,
    ];
    const refused = [401, ...UNAUTHENTICATED] as const;
    for (const headers of credentials) {
      expect(await unexpected(staffOnly, refused, (operation) => send(operation, headers))).toEqual([]);
    }
  });

  it('refuses every state change without its session CSRF token, or from another site, with the 403', async () => {
    const all = await operations();
    const member = await enrolledStaff(ctx, clock, 'admin');
    const session = await signedInStaff(ctx, clock, member);
    const other = await signedInStaff(ctx, clock, member);
    const changes = all.filter((operation) => operation.method === 'POST');
    const signedInChanges = changes.filter((operation) => operation.signedIn);
    const refusals: Record<string, string>[] = [
      { cookie: session.cookie },
      { cookie: session.cookie, 'x-csrf-token': '' },
      { cookie: session.cookie, 'x-csrf-token': other['x-csrf-token'] },
      { cookie: session.cookie, ...CROSS_SITE },
    ];
    const refused = [403, ...CSRF] as const;
    for (const headers of refusals) {
      expect(await unexpected(signedInChanges, refused, (operation) => send(operation, headers))).toEqual([]);
    }
    // Sign-in and enrollment have no session yet: they must come from a page of this origin.
    const signedOut = changes.filter((operation) => !operation.signedIn);
    expect(signedOut.map((operation) => operation.url).sort()).toEqual([
      '/admin/v1/auth/login',
      '/admin/v1/auth/login/passkey',
      '/admin/v1/auth/login/passkey/options',
      '/admin/v1/enrollment',
      '/admin/v1/enrollment/passkey',
      '/admin/v1/enrollment/passkey/options',
    ]);
    for (const headers of [{}, { ...FROM_CONSOLE, ...CROSS_SITE }]) {
      expect(await unexpected(signedOut, refused, (operation) => send(operation, headers))).toEqual([]);
    }
    // The session itself still works: nothing above ended it.
    expectOk(await ctx.app.inject({ method: 'GET', url: '/admin/v1/me', headers: session }));
  });

  it("refuses each role, with the 403, every endpoint whose permission the role's row does not give", async () => {
    const all = await operations();
    for (const role of staffRoles) {
      const session = await signedInStaff(ctx, clock, await enrolledStaff(ctx, clock, role));
      const refused = all.filter(
        (operation) =>
          operation.permission !== undefined &&
          !(permissionsOf(role) as readonly string[]).includes(operation.permission),
      );
      // Every role is refused something but admin, refused nothing.
      expect(refused.length === 0).toBe(role === 'admin');
      const forbidden = [403, 'AccessDeniedHttpException', 'This action is unauthorized.', []] as const;
      expect(await unexpected(refused, forbidden, (operation) => send(operation, session))).toEqual([]);
    }
  });

  it('answers a body over BODY_LIMIT with the 413 envelope on every state change, signed in or not', async () => {
    const changes = (await operations()).filter((operation) => operation.method === 'POST');
    const big = { reason: 'a'.repeat(5000) };
    for (const operation of changes) {
      expectError(
        await send(operation, FROM_CONSOLE, big),
        413,
        'PayloadTooLargeHttpException',
        'Payload Too Large',
      );
    }
  });

  it('never promotes a cookie the client had before signing in', async () => {
    const member = await enrolledStaff(ctx, clock, 'support');
    const planted = 'attacker-chosen-token-aaaaaaaaaaaaaaaaaaaaaaa';
    const earlier = await signedInStaff(ctx, clock, member);
    for (const cookie of [`accounts_staff=${planted}`, earlier.cookie]) {
      const res = await staffLogin(ctx.app, member, codeOf(member.secret, clock), member.password, {
        cookie,
      });
      expectOk(res);
      clock.advance(30_000);
      expect(staffCookieOf(res)).not.toBe(cookie);
    }
    expectError(
      await ctx.app.inject({
        method: 'GET',
        url: '/admin/v1/me',
        headers: { cookie: `accounts_staff=${planted}` },
      }),
      401,
      ...UNAUTHENTICATED,
    );
  });

  it('answers alike, after one password check each, for an unknown email, a wrong password, a member not enrolled', async () => {
    const member = await enrolledStaff(ctx, clock, 'viewer');
    const invited = await addStaff(ctx, 'viewer');
    const disabled = await enrolledStaff(ctx, clock, 'viewer');
    await buildTestServices(ctx).staff.disable(disabled.id, 'cli:test');
    const verify = vi.spyOn(PasswordHasher.prototype, 'verify');
    const code = codeOf(member.secret, clock);
    const attempts = [
      { ...member, email: 'nobody-here@example.com' },
      { ...member, password: 'not the pass phrase' },
      { ...member, email: invited.email },
      disabled,
    ];
    for (const attempt of attempts) {
      verify.mockClear();
      expectError(await staffLogin(ctx.app, attempt, code), 401, ...INVALID);
      expect(verify).toHaveBeenCalledTimes(1);
    }
  });
});
