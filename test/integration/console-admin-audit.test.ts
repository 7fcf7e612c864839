import { describe, expect, it } from 'vitest';
import { backends } from '../helpers/database.js';
import { registerUser } from '../helpers/factories.js';
import { expectError, expectOk, expectValidationError } from '../helpers/http.js';
import { buildTestServices } from '../helpers/services.js';
import { enrolledStaff, signedInStaff, testClock, useConsoleApp } from '../helpers/staff.js';

const FORBIDDEN = ['AccessDeniedHttpException', 'This action is unauthorized.'] as const;

interface AuditPage {
  records: {
    seq: string;
    at: string;
    actor: string;
    subject_id: string | null;
    action: string;
    outcome: string;
  }[];
  next_cursor: string | null;
}

describe.each(backends)('%s: the admin API on the access records', (backend) => {
  const clock = testClock();
  const ctx = useConsoleApp(backend, clock);

  const signedIn = async (role: string) => {
    const member = await enrolledStaff(ctx, clock, role);
    return { id: member.id, headers: await signedInStaff(ctx, clock, member) };
  };
  const get = (url: string, headers: Record<string, string>) =>
    ctx.app.inject({ method: 'GET', url: `/admin/v1${url}`, headers });

  it('filters by staff member, subject and action, newest first, a keyset page at a time', async () => {
    const user = await registerUser(ctx.app);
    const other = await registerUser(ctx.app);
    const support = await signedIn('support');
    for (const id of [user.id, other.id, user.id]) expectOk(await get(`/users/${id}`, support.headers));
    const admin = await signedIn('admin');

    const first = expectOk<AuditPage>(
      await get(`/audit?staff=${support.id}&subject=${user.id}&limit=1`, admin.headers),
    );
    expect(first.records.map((r) => [r.actor, r.subject_id, r.action, r.outcome])).toEqual([
      [support.id, user.id, 'user.view', 'ok'],
    ]);
    expect(first.next_cursor).toBe(`${first.records[0]?.at}_${first.records[0]?.seq}`);
    const second = expectOk<AuditPage>(
      await get(
        `/audit?staff=${support.id}&subject=${user.id}&limit=1&cursor=${first.next_cursor}`,
        admin.headers,
      ),
    );
    expect(second.records).toHaveLength(1);
    expect(BigInt(second.records[0]?.seq ?? 0)).toBeLessThan(BigInt(first.records[0]?.seq ?? 0));
    expect(second.next_cursor).toBeNull();

    const byAction = expectOk<AuditPage>(
      await get(`/audit?staff=${support.id}&action=user.view`, admin.headers),
    );
    expect(byAction.records.map((r) => r.subject_id)).toEqual([user.id, other.id, user.id]);
    const none = expectOk<AuditPage>(await get(`/audit?staff=${support.id}&until=2000-01-01`, admin.headers));
    expect(none).toEqual({ records: [], next_cursor: null });

    expectValidationError(await get('/audit?subject=not-an-id', admin.headers), {
      subject: ['The subject format is invalid.'],
    });
    expectValidationError(await get('/audit?cursor=12', admin.headers), {
      cursor: ['The selected cursor is invalid.'],
    });
  });

  it('records the reading of the records, and a refusal of anyone but admin with 403', async () => {
    const user = await registerUser(ctx.app);
    const admin = await signedIn('admin');
    expectOk(await get(`/audit?subject=${user.id}`, admin.headers));
    for (const role of ['viewer', 'support', 'content']) {
      const member = await signedIn(role);
      expectError(await get(`/audit?subject=${user.id}`, member.headers), 403, ...FORBIDDEN);
      expectError(await get('/audit/review?month=2026-11', member.headers), 403, ...FORBIDDEN);
    }
    const { records } = await buildTestServices(ctx).accessRecords.page({ subjectId: user.id }, 10);
    expect(records.reverse().map((r) => [r.action, r.outcome])).toEqual([
      ['audit.view', 'ok'],
      ['audit.view', 'refused'],
      ['audit.view', 'refused'],
      ['audit.view', 'refused'],
    ]);
  });

  it('answers the monthly review of a month, and records it', async () => {
    const admin = await signedIn('admin');
    const review = expectOk<{ findings: unknown[] }>(await get('/audit/review?month=2026-11', admin.headers));
    expect(review).toEqual({
      month: '2026-11',
      time_zone: 'Asia/Seoul',
      working_hours: '09:00-19:00',
      working_days: 'mon-fri',
      from: '2026-10-31T15:00:00.000Z',
      until: '2026-11-30T15:00:00.000Z',
      findings: expect.any(Array),
    });
    expectValidationError(await get('/audit/review?month=2026-13', admin.headers), {
      month: ['The month format is invalid.'],
    });
    const { records } = await buildTestServices(ctx).accessRecords.page({ actor: admin.id }, 5);
    expect(records.map((r) => [r.action, r.outcome, r.detail])).toEqual([
      ['audit.review', 'ok', { month: '2026-11', findings: review.findings.length }],
    ]);
  });
});
