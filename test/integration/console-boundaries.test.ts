import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { permissions } from '../../src/modules/staff/permissions.js';
import { ADMIN_PATHS } from '../helpers/admin-paths.js';
import { backends } from '../helpers/database.js';
import { bearer, registerUser } from '../helpers/factories.js';
import { expectError, expectOk, expectValidationError, UNAUTHENTICATED } from '../helpers/http.js';
import { registeredRoutes } from '../helpers/routes.js';
import { buildTestServices } from '../helpers/services.js';
import {
  codeOf,
  enrolledStaff,
  FROM_CONSOLE,
  signedInStaff,
  staffLogin,
  testClock,
  useConsoleApp,
} from '../helpers/staff.js';

const CSRF = [
  'AccessDeniedHttpException',
  'The CSRF token is missing or wrong.',
  { status: 'csrf_token_invalid' },
] as const;

describe.each(backends)('%s: the admin API and its boundaries', (backend) => {
  const clock = testClock();
  const ctx = useConsoleApp(backend, clock);

  const logout = (headers: Record<string, string>) =>
    ctx.app.inject({ method: 'POST', url: '/admin/v1/auth/logout', headers });

  it('refuses a state change without the session CSRF token, and a sign-in not sent by the console pages', async () => {
    const member = await enrolledStaff(ctx, clock, 'viewer');
    const session = await signedInStaff(ctx, clock, member);
    expectError(await logout({ cookie: session.cookie }), 403, ...CSRF);
    expectError(
      await logout({ cookie: session.cookie, 'x-csrf-token': `${session['x-csrf-token'].slice(1)}A` }),
      403,
      ...CSRF,
    );
    // Another session's token is no token of this one.
    const other = await signedInStaff(ctx, clock, member);
    expectError(
      await logout({ cookie: session.cookie, 'x-csrf-token': other['x-csrf-token'] }),
      403,
      ...CSRF,
    );
    expectOk(
      await ctx.app.inject({ method: 'GET', url: '/admin/v1/me', headers: { cookie: session.cookie } }),
    );

    const payload = { email: member.email, password: member.password, code: codeOf(member.secret, clock) };
    expectError(await ctx.app.inject({ method: 'POST', url: '/admin/v1/auth/login', payload }), 403, ...CSRF);
    expectError(
      await ctx.app.inject({
        method: 'POST',
        url: '/admin/v1/auth/login',
        headers: { ...FROM_CONSOLE, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
        payload,
      }),
      403,
      ...CSRF,
    );
    expect(expectOk(await logout(session))).toEqual({ status: 'signed_out' });
  });

  it('never takes an app api_token as a staff credential, nor a staff session on the app API', async () => {
    const user = await registerUser(ctx.app);
    // The token works where it belongs.
    expectOk(await ctx.app.inject({ method: 'GET', url: '/v1/user/get', headers: bearer(user.token) }));
    expectError(
      await ctx.app.inject({ method: 'GET', url: '/admin/v1/me', headers: bearer(user.token) }),
      401,
      ...UNAUTHENTICATED,
    );
    expectError(
      await ctx.app.inject({ method: 'GET', url: `/admin/v1/me?api_token=${user.token}` }),
      401,
      ...UNAUTHENTICATED,
    );
    expectError(
      await ctx.app.inject({
        method: 'GET',
        url: '/admin/v1/me',
        headers: { cookie: `accounts_session=${user.token}` },
      }),
      401,
      ...UNAUTHENTICATED,
    );

    const member = await enrolledStaff(ctx, clock, 'admin');
    const session = await signedInStaff(ctx, clock, member);
    const token = session.cookie.split('=')[1] as string;
    expectOk(await ctx.app.inject({ method: 'GET', url: '/admin/v1/me', headers: session }));
    const asApp = [
      { cookie: session.cookie, 'x-requested-with': 'accounts-web' },
      { cookie: `accounts_session=${token}`, 'x-requested-with': 'accounts-web' },
      bearer(token),
    ];
    for (const headers of asApp) {
      expectError(
        await ctx.app.inject({ method: 'GET', url: '/v1/user/get', headers }),
        401,
        ...UNAUTHENTICATED,
      );
    }
  });

  it("refuses with 403 what the member's role does not allow", async () => {
    const viewer = await signedInStaff(ctx, clock, await enrolledStaff(ctx, clock, 'viewer'));
    expectError(
      await ctx.app.inject({ method: 'GET', url: '/admin/v1/staff', headers: viewer }),
      403,
      'AccessDeniedHttpException',
      'This action is unauthorized.',
    );
    const admin = await enrolledStaff(ctx, clock, 'admin');
    const { staff } = expectOk<{ staff: { email: string; state: string; role: string }[] }>(
      await ctx.app.inject({
        method: 'GET',
        url: '/admin/v1/staff',
        headers: await signedInStaff(ctx, clock, admin),
      }),
    );
    expect(staff.find((row) => row.email === admin.email)).toMatchObject({ role: 'admin', state: 'active' });
  });

  it('ends the sessions of a member whose role changes or who is disabled; a disabled member cannot sign in', async () => {
    const services = buildTestServices(ctx);
    const member = await enrolledStaff(ctx, clock, 'support');
    const session = await signedInStaff(ctx, clock, member);
    await services.staff.setRole(member.email, 'viewer', 'cli:test');
    expectError(
      await ctx.app.inject({ method: 'GET', url: '/admin/v1/me', headers: session }),
      401,
      ...UNAUTHENTICATED,
    );
    const again = await signedInStaff(ctx, clock, member);
    await services.staff.disable(member.id, 'cli:test');
    expectError(
      await ctx.app.inject({ method: 'GET', url: '/admin/v1/me', headers: again }),
      401,
      ...UNAUTHENTICATED,
    );
    expectError(
      await staffLogin(ctx.app, member, codeOf(member.secret, clock)),
      401,
      'Unauthorized',
      'The login credentials are invalid.',
      {
        status: 'authentication_failed',
      },
    );
    await services.staff.enable(member.id, 'cli:test');
    expectOk(await staffLogin(ctx.app, member, codeOf(member.secret, clock)));
  });

  it('records every grant, change and revocation of rights, and the database keeps the records', async () => {
    const services = buildTestServices(ctx);
    const member = await enrolledStaff(ctx, clock, 'viewer');
    await services.staff.setRole(member.email, 'content', 'cli:ops');
    await services.staff.disable(member.email, 'cli:ops');
    await services.staff.enable(member.email, 'cli:ops');
    await services.staff.remove(member.email, 'cli:ops');
    const { rows } = await sql<{
      action: string;
      actor: string;
      role_before: string | null;
      role_after: string | null;
    }>`
      SELECT action, actor, role_before, role_after FROM staff_rights_changes WHERE staff_id = ${member.id}
      ORDER BY created_at, id`.execute(ctx.database.handle.db);
    expect(rows).toEqual([
      { action: 'grant', actor: 'cli:test', role_before: null, role_after: 'viewer' },
      { action: 'change', actor: 'cli:ops', role_before: 'viewer', role_after: 'content' },
      { action: 'disable', actor: 'cli:ops', role_before: 'content', role_after: null },
      { action: 'enable', actor: 'cli:ops', role_before: null, role_after: 'content' },
      { action: 'remove', actor: 'cli:ops', role_before: 'content', role_after: null },
    ]);
    const db = ctx.database.handle.db;
    await expect(
      sql`DELETE FROM staff_rights_changes WHERE staff_id = ${member.id}`.execute(db),
    ).rejects.toThrow(/kept for three years/);
    await expect(
      sql`UPDATE staff_rights_changes SET actor = 'x' WHERE staff_id = ${member.id}`.execute(db),
    ).rejects.toThrow(/never changed/);
  });

  it('lets an admin unlock, disable, enable and change the role of another member, recorded as theirs', async () => {
    const admin = await enrolledStaff(ctx, clock, 'admin');
    const session = await signedInStaff(ctx, clock, admin);
    const member = await enrolledStaff(ctx, clock, 'viewer');
    for (let attempt = 1; attempt <= 5; attempt++) {
      await staffLogin(ctx.app, member, codeOf(member.secret, clock), 'wrong pass phrase');
    }
    const act = (
      path: string,
      headers: Record<string, string> = session,
      payload: Record<string, string> = {},
    ) => ctx.app.inject({ method: 'POST', url: `/admin/v1/staff/${path}`, headers, payload });
    expect(expectOk<{ staff: { state: string } }>(await act(`${member.id}/unlock`)).staff.state).toBe(
      'active',
    );
    expect(
      expectOk<{ staff: { role: string } }>(await act(`${member.id}/role`, session, { role: 'content' }))
        .staff.role,
    ).toBe('content');
    expectValidationError(await act(`${member.id}/role`, session, { role: 'owner' }), {
      role: ['The selected role is invalid.'],
    });
    expect(expectOk<{ staff: { state: string } }>(await act(`${member.id}/disable`)).staff.state).toBe(
      'disabled',
    );
    expect(expectOk<{ staff: { state: string } }>(await act(`${member.id}/enable`)).staff.state).toBe(
      'active',
    );
    const history = await buildTestServices(ctx).staff.history(member.id);
    expect(history.map((change) => [change.action, change.actor])).toEqual([
      ['grant', 'cli:test'],
      ['unlock', `staff:${admin.id}`],
      ['change', `staff:${admin.id}`],
      ['disable', `staff:${admin.id}`],
      ['enable', `staff:${admin.id}`],
    ]);
    // Not their own rights, not without the CSRF token, not an unknown member, not below admin.
    const forbidden = ['AccessDeniedHttpException', 'This action is unauthorized.'] as const;
    expectError(await act(`${admin.id}/disable`), 403, ...forbidden);
    expectError(await act(`${member.id}/disable`, { cookie: session.cookie }), 403, ...CSRF);
    expectError(
      await act('019ad0c4-5e20-7b4c-9d1e-2f3a4b5c6d7e/unlock'),
      404,
      'NotFoundHttpException',
      'Not Found',
    );
    const viewer = await signedInStaff(ctx, clock, await enrolledStaff(ctx, clock, 'viewer'));
    expectError(await act(`${member.id}/disable`, viewer), 403, ...forbidden);
  });

  it('documents the admin API at /admin/openapi.json alone, and none of it in the app document', async () => {
    type Operation = { summary: string; security: unknown[]; 'x-permission'?: string };
    type Document = { servers: unknown[]; paths: Record<string, Record<string, Operation>> };
    const admin = (await ctx.app.inject({ method: 'GET', url: '/admin/openapi.json' })).json() as Document;
    expect(admin.servers).toEqual([{ url: '/admin/v1' }]);
    expect(Object.keys(admin.paths)).toEqual(ADMIN_PATHS);
    expect(admin.paths['/staff']?.get).toMatchObject({
      security: [{ staffSession: [] }],
      'x-permission': 'staff.manage',
    });
    expect(admin.paths['/auth/login']?.post?.security).toEqual([]);
    // Every permission an endpoint names is one the roles table knows (a typo would refuse every role).
    const named = Object.values(admin.paths).flatMap((operations) =>
      Object.values(operations).flatMap((op) => (op['x-permission'] ? [op['x-permission']] : [])),
    );
    expect(named.filter((permission) => !(permissions as readonly string[]).includes(permission))).toEqual(
      [],
    );
    const app = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json() as Document;
    const summaries = (document: Document) =>
      Object.values(document.paths).flatMap((operations) =>
        Object.values(operations).map((op) => op.summary),
      );
    const appSummaries = new Set(summaries(app));
    expect(summaries(admin).filter((summary) => appSummaries.has(summary))).toEqual([]);
    // Every admin route the instance answers is in the admin document, and nothing else is.
    const documented = Object.entries(admin.paths).flatMap(([path, operations]) =>
      Object.keys(operations).map(
        (method) => `${method.toUpperCase()} /admin/v1${path.replace(/\{(\w+)\}/g, ':$1')}`,
      ),
    );
    const answered = registeredRoutes(ctx.app).filter((route) => /^\w+ \/admin\/v1\//.test(route));
    expect(answered.sort()).toEqual(documented.sort());
    expect(JSON.stringify(app)).not.toMatch(/staffSession|accounts_staff|\/admin/);
  });
});
