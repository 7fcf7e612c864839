import { describe, expect, it } from 'vitest';
import { backends } from '../helpers/database.js';
import { registerUser } from '../helpers/factories.js';
import { expectError, expectOk, expectValidationError } from '../helpers/http.js';
import { buildTestServices } from '../helpers/services.js';
import { enrolledStaff, signedInStaff, testClock, useConsoleApp } from '../helpers/staff.js';

const FORBIDDEN = ['AccessDeniedHttpException', 'This action is unauthorized.'] as const;
const REASON = 'Ticket 4411: the user asks which address the account has';

describe.each(backends)('%s: the admin API on users', (backend) => {
  const clock = testClock();
  const ctx = useConsoleApp(backend, clock);

  const signedIn = async (role: string) => {
    const member = await enrolledStaff(ctx, clock, role);
    return { id: member.id, headers: await signedInStaff(ctx, clock, member) };
  };
  /** The records about one user, oldest first, as the access records keep them. */
  const recordsOf = async (subjectId: string) => {
    const { records } = await buildTestServices(ctx).accessRecords.page({ subjectId }, 50);
    return records.reverse().map((r) => ({
      actor: r.actor,
      client_address: r.clientAddress,
      action: r.action,
      reason: r.reason,
      outcome: r.outcome,
      detail: r.detail,
    }));
  };
  const get = (url: string, headers: Record<string, string>) =>
    ctx.app.inject({ method: 'GET', url: `/admin/v1${url}`, headers });
  const post = (url: string, headers: Record<string, string>, payload: Record<string, string> = {}) =>
    ctx.app.inject({ method: 'POST', url: `/admin/v1${url}`, headers, payload });

  it('lets support find a user masked, show the email with a reason and disable the account, each recorded', async () => {
    const user = await registerUser(ctx.app);
    const support = await signedIn('support');

    const page = expectOk<{ users: Record<string, unknown>[]; next_cursor: string | null }>(
      await get(`/users/search?field=email&query=${encodeURIComponent(user.email)}`, support.headers),
    );
    expect(page).toEqual({
      users: [
        {
          id: user.id,
          email: 'r***@example.com',
          username: user.username,
          slug: user.slug,
          email_verified: false,
          phone: null,
          disabled_at: null,
          deletion_due_at: null,
          birth_year: null,
          created_at: expect.any(String),
        },
      ],
      next_cursor: null,
    });

    const overview = expectOk<{ profile: Record<string, unknown> }>(
      await get(`/users/${user.id}`, support.headers),
    );
    expect(overview.profile).toMatchObject({ id: user.id, email: 'r***@example.com' });
    expect(JSON.stringify(overview)).not.toContain(user.email);

    expectValidationError(await post(`/users/${user.id}/reveal`, support.headers, { field: 'email' }), {
      reason: ['The reason field is required.'],
    });
    expect(
      expectOk(await post(`/users/${user.id}/reveal`, support.headers, { field: 'email', reason: REASON })),
    ).toEqual({ field: 'email', value: user.email });
    expect(
      expectOk(await post(`/users/${user.id}/disable`, support.headers, { reason: 'Reported as stolen' })),
    ).toEqual({ disabled_at: expect.any(String) });

    const by = { actor: support.id, client_address: '127.0.0.1' };
    expect(await recordsOf(user.id)).toEqual([
      { ...by, action: 'user.view', reason: null, outcome: 'ok', detail: {} },
      { ...by, action: 'user.unmask.email', reason: REASON, outcome: 'ok', detail: { field: 'email' } },
      {
        ...by,
        action: 'user.disable',
        reason: 'Reported as stolen',
        outcome: 'ok',
        detail: { disabled_at: expect.any(String) },
      },
    ]);
  });

  it('refuses a viewer every action and every field in full with 403, and records each refusal', async () => {
    const user = await registerUser(ctx.app);
    const viewer = await signedIn('viewer');
    expectOk(await get(`/users/${user.id}`, viewer.headers));
    const refused = [
      ['reveal', { field: 'email', reason: REASON }, 'user.unmask', 'users.unmask'],
      ['disable', { reason: 'x' }, 'user.disable', 'users.act'],
      ['revoke-sessions', { reason: 'x' }, 'user.revoke_sessions', 'users.act'],
      ['rename', { username: 'someone', reason: 'x' }, 'user.rename', 'users.act'],
    ] as const;
    for (const [name, payload] of refused) {
      expectError(await post(`/users/${user.id}/${name}`, viewer.headers, payload), 403, ...FORBIDDEN);
    }
    expectError(
      await post('/users/export', viewer.headers, { field: 'email', query: user.email, reason: REASON }),
      403,
      ...FORBIDDEN,
    );
    const by = { actor: viewer.id, client_address: '127.0.0.1', reason: null };
    expect(await recordsOf(user.id)).toEqual([
      { ...by, action: 'user.view', outcome: 'ok', detail: {} },
      ...refused.map(([, , action, permission]) => ({
        ...by,
        action,
        outcome: 'refused',
        detail: { permission },
      })),
    ]);
    // The account was not touched.
    expect(
      expectOk<{ profile: { disabled_at: null } }>(await get(`/users/${user.id}`, viewer.headers)).profile
        .disabled_at,
    ).toBeNull();
  });

  it('exports a search as a CSV attachment: masked for support, in full for admin, with its row count', async () => {
    const user = await registerUser(ctx.app);
    const body = { field: 'email', query: user.email, reason: 'Monthly check of a complaint' };
    for (const [role, email] of [
      ['support', 'r***@example.com'],
      ['admin', user.email],
    ] as const) {
      const member = await signedIn(role);
      const res = await post('/users/export', member.headers, body);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(res.headers['content-disposition']).toMatch(
        /^attachment; filename="users-\d{4}-\d{2}-\d{2}\.csv"$/,
      );
      const lines = res.body.trim().split(/\r?\n/);
      expect(lines).toHaveLength(2);
      expect(lines[0]).toBe(
        '"id","email","username","slug","email_verified","disabled_at","deletion_due_at","birth_date","created_at","phone"',
      );
      expect(lines[1]?.startsWith(`"${user.id}","${email}","${user.username}",`)).toBe(true);
      const { records } = await buildTestServices(ctx).accessRecords.page({ actor: member.id }, 5);
      expect(records.map((r) => [r.action, r.reason, r.outcome, r.detail])).toEqual([
        [
          'users.export',
          body.reason,
          'ok',
          { field: 'email', mode: 'exact', query: user.email, rows: 1, masked: role !== 'admin' },
        ],
      ]);
    }
  });

  it('runs every support action over the API with its reason, each one record about the user', async () => {
    const user = await registerUser(ctx.app);
    const support = await signedIn('support');
    const act = async (path: string, payload: Record<string, string>) =>
      expectOk(
        await post(`/users/${user.id}/${path}`, support.headers, { reason: `why ${path}`, ...payload }),
      );
    expect(await act('revoke-sessions', {})).toEqual({ revoked: 1 });
    expect(await act('reset-second-factor', {})).toEqual({ outcome: expect.any(String) });
    expect(await act('resend-verification', { locale: 'ko' })).toEqual({ status: 'sent' });
    expect(await act('schedule-deletion', {})).toEqual({ scheduled: true, due_at: expect.any(String) });
    expect(await act('cancel-deletion', {})).toEqual({ cancelled: true });
    expect(await act('rename', { username: `renamed${user.username}` })).toEqual({
      username: `renamed${user.username}`,
      slug: user.slug,
    });
    expectError(
      await post(`/users/${user.id}/sessions/${user.id}/revoke`, support.headers, { reason: 'gone' }),
      404,
      'NotFoundHttpException',
      'Not Found',
    );
    const done = (await recordsOf(user.id)).map((r) => [r.action, r.reason, r.outcome]);
    expect(done).toEqual([
      ['user.revoke_sessions', 'why revoke-sessions', 'ok'],
      ['user.reset_second_factor', 'why reset-second-factor', 'ok'],
      ['user.resend_verification', 'why resend-verification', 'ok'],
      ['user.schedule_deletion', 'why schedule-deletion', 'ok'],
      ['user.cancel_deletion', 'why cancel-deletion', 'ok'],
      ['user.rename', 'why rename', 'ok'],
      ['user.revoke_session', 'gone', 'failed'],
    ]);
  });

  it('renames by the API’s rules: each refusal a 422 naming its field in the API’s words', async () => {
    const user = await registerUser(ctx.app);
    const taken = await registerUser(ctx.app);
    const support = await signedIn('support');
    const rename = (payload: Record<string, string>) =>
      post(`/users/${user.id}/rename`, support.headers, payload);
    expectValidationError(await rename({ username: taken.username.toUpperCase(), reason: REASON }), {
      username: ['The username has already been taken.'],
    });
    expectValidationError(await rename({ slug: 'a b', reason: REASON }), {
      slug: ['The slug must be at least 4 characters.'],
    });
    expectValidationError(await rename({ slug: `${user.slug}-new` }), {
      reason: ['The reason field is required.'],
    });
    expect(expectOk(await rename({ slug: `${user.slug}-new`, reason: REASON }))).toEqual({
      username: user.username,
      slug: `${user.slug}-new`,
    });
    // The taken name reached the service (a recorded attempt); the shapes and the missing reason did not.
    expect((await recordsOf(user.id)).map((r) => [r.action, r.outcome, r.detail])).toEqual([
      ['user.rename', 'failed', { error: 'validation_failed' }],
      [
        'user.rename',
        'ok',
        {
          before: { username: user.username, slug: user.slug },
          after: { username: user.username, slug: `${user.slug}-new` },
        },
      ],
    ]);
  });

  it.each([
    ['viewer', 200, 403, 403, 403],
    ['support', 200, 200, 200, 200],
    ['content', 200, 403, 403, 403],
    ['admin', 200, 200, 200, 200],
  ])('answers %s: page %i, show %i, act %i, export %i', async (role, page, show, act, exported) => {
    const user = await registerUser(ctx.app);
    const { headers } = await signedIn(role);
    const reason = 'Role check';
    // The whole envelope: the answer's data where allowed, the catalogue's 403 where not.
    const answers = (res: Awaited<ReturnType<typeof get>>, status: number) =>
      status === 200 ? void expectOk(res) : expectError(res, 403, ...FORBIDDEN);
    answers(await get(`/users/${user.id}`, headers), page);
    answers(await post(`/users/${user.id}/reveal`, headers, { field: 'email', reason }), show);
    answers(await post(`/users/${user.id}/resend-verification`, headers, { reason }), act);
    const body = { field: 'id', query: user.id, reason };
    expect((await post('/users/export', headers, body)).statusCode).toBe(exported);
    const outcomes = (await recordsOf(user.id)).map((r) => r.outcome);
    expect(outcomes).toEqual(['ok', show === 200 ? 'ok' : 'refused', act === 200 ? 'ok' : 'refused']);
  });

  it('documents the users and audit routes with their permission in /admin/openapi.json only', async () => {
    const admin = (await ctx.app.inject({ method: 'GET', url: '/admin/openapi.json' })).json() as {
      paths: Record<string, Record<string, { 'x-permission'?: string }>>;
    };
    expect(admin.paths['/users/search']?.get?.['x-permission']).toBe('users.read');
    expect(admin.paths['/users/{id}/reveal']?.post?.['x-permission']).toBe('users.unmask');
    expect(admin.paths['/users/{id}/disable']?.post?.['x-permission']).toBe('users.act');
    expect(admin.paths['/users/export']?.post?.['x-permission']).toBe('users.export');
    expect(admin.paths['/audit']?.get?.['x-permission']).toBe('audit.read');
    const app = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: object };
    expect(Object.keys(app.paths).filter((path) => /^\/(users\/|audit)/.test(path))).toEqual([]);
  });
});
