import type { FastifyRequest } from 'fastify';
import { ValidationError } from '../../errors.js';
import { type AnyAdminEndpoint, adminEndpoint, type StaffAuth } from '../../http/admin-endpoint.js';
import { t } from '../../http/response-schema.js';
import { recordedAddress } from '../../limits/client-address.js';
import { integer, string } from '../../validation/field-kinds.js';
import { rules } from '../../validation/rule-list.js';
import type { AccessRecordFilter, StoredAccessRecord } from './repo.js';
import type { AccessReview, MonthlyReview } from './review.js';
import { type AccessRecordOutcome, type AccessRecords, decodeRecordCursor } from './service.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const INSTANT = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/;
export const AUDIT_PAGE = { default: 50, max: 100 } as const;

const filterRules = rules({
  staff: string().pattern(UUID).describe('Only this staff member’s records (their id).'),
  cli: string().max(128).describe('Only the records of commands run by this operating-system user.'),
  subject: string().pattern(UUID).describe('Only the records about this user (their id).'),
  action: string().max(64).describe('Only this action, e.g. `user.unmask.email`, `users.export`.'),
  from: string()
    .pattern(INSTANT)
    .describe('From this instant on (ISO 8601; a bare date is its UTC midnight).'),
  until: string().pattern(INSTANT).describe('Before this instant (ISO 8601).'),
  limit: integer().min(1).max(AUDIT_PAGE.max).describe('Records per page (1–100, 50 by default).'),
  cursor: string().max(64).describe("The previous page's `next_cursor`."),
});

const recordShape = t.object({
  seq: t.string(),
  at: t.dateTime(),
  actor_kind: t.enum(['staff', 'cli'] as const),
  actor: t.string(),
  client_address: t.nullable(t.string()),
  subject_id: t.nullable(t.string()),
  action: t.string(),
  reason: t.nullable(t.string()),
  outcome: t.enum(['ok', 'refused', 'failed'] as const),
  detail: t.json<Record<string, unknown>>(
    'What the action touched: a query and a row count, a field, an error.',
  ),
  hash: t.string(),
});

function view(record: StoredAccessRecord) {
  return {
    seq: record.seq,
    at: record.at.toISOString(),
    actor_kind: record.actorKind,
    actor: record.actor,
    client_address: record.clientAddress,
    subject_id: record.subjectId,
    action: record.action,
    reason: record.reason,
    outcome: record.outcome,
    detail: (record.detail ?? {}) as Record<string, unknown>,
    hash: record.hash,
  };
}

const findingShape = t.json<MonthlyReview['findings'][number]>(
  'A finding: `unmasks`, `exports`, `outside_hours` or `many_subjects`, the actor and its counts.',
);

/**
 * Reading the records is itself recorded (`audit.view`, `audit.review`): they hold people's ids and the
 * queries staff typed (often an email), so an admin reading them is one more look at personal data, and
 * the reviewers stay reviewable. The detail keeps the filter, the subject the filtered user.
 */
export function accessRecordEndpoints(records: AccessRecords, review: AccessReview): AnyAdminEndpoint[] {
  const write = (
    staff: StaffAuth,
    request: FastifyRequest,
    action: string,
    outcome: AccessRecordOutcome,
    detail: Record<string, unknown>,
    subjectId: string | null = null,
  ) =>
    records.append({
      actor: { kind: 'staff', staffId: staff.staff.id },
      clientAddress: recordedAddress(request.ip),
      subjectId,
      action,
      outcome,
      detail,
    });
  const subjectOf = (request: FastifyRequest) => {
    const subject = (request.query as { subject?: unknown }).subject;
    return typeof subject === 'string' && UUID.test(subject) ? subject.toLowerCase() : null;
  };
  return [
    adminEndpoint({
      method: 'GET',
      path: '/audit',
      summary:
        'The access records, newest first: by staff member, subject, action and period, a keyset page at a time',
      tag: 'audit',
      auth: 'staff',
      permission: 'audit.read',
      refused: async ({ staff, request }) => {
        await write(
          staff,
          request,
          'audit.view',
          'refused',
          { permission: 'audit.read' },
          subjectOf(request),
        );
      },
      rules: filterRules,
      response: t.object({ records: t.array(recordShape), next_cursor: t.nullable(t.string()) }),
      example: {
        records: [
          {
            seq: '1204',
            at: '2026-11-28T09:14:03.120Z',
            actor_kind: 'staff',
            actor: '019ad0c4-5e20-7b4c-9d1e-2f3a4b5c6d7e',
            client_address: '203.0.113.9',
            subject_id: '0193a5c1-7d2e-7f00-8a11-3c4d5e6f7a8b',
            action: 'user.unmask.email',
            reason: 'Ticket 4411: the user asks which address the account has',
            outcome: 'ok',
            detail: { field: 'email' },
            hash: '9f2c…',
          },
        ],
        next_cursor: null,
      },
      handle: async ({ params, staff, request }) => {
        const filter: AccessRecordFilter = {};
        if (params.staff !== undefined)
          Object.assign(filter, { actorKind: 'staff', actor: params.staff.toLowerCase() });
        if (params.cli !== undefined) Object.assign(filter, { actorKind: 'cli', actor: params.cli });
        if (params.subject !== undefined) filter.subjectId = params.subject.toLowerCase();
        if (params.action !== undefined) filter.action = params.action;
        if (params.from !== undefined) filter.from = new Date(params.from);
        if (params.until !== undefined) filter.until = new Date(params.until);
        if (params.cursor !== undefined) {
          const before = decodeRecordCursor(params.cursor);
          if (before === undefined) throw new ValidationError({ cursor: [{ rule: 'in' }] });
          filter.before = before;
        }
        const page = await records.page(filter, params.limit ?? AUDIT_PAGE.default);
        const { limit: _limit, cursor: _cursor, ...asked } = params;
        await write(
          staff,
          request,
          'audit.view',
          'ok',
          { filter: asked, rows: page.records.length },
          filter.subjectId ?? null,
        );
        return { records: page.records.map(view), next_cursor: page.next ?? null };
      },
    }),
    adminEndpoint({
      method: 'GET',
      path: '/audit/review',
      summary: 'The monthly review: what in a month deserves a look',
      tag: 'audit',
      auth: 'staff',
      permission: 'audit.read',
      refused: async ({ staff, request }) => {
        await write(staff, request, 'audit.review', 'refused', { permission: 'audit.read' });
      },
      rules: rules({
        month: string()
          .required()
          .pattern(/^2\d{3}-(0[1-9]|1[0-2])$/)
          .describe('The month, `YYYY-MM`, read in CONSOLE_TIME_ZONE.'),
      }),
      response: t.object({
        month: t.string(),
        time_zone: t.string(),
        working_hours: t.string(),
        working_days: t.string(),
        from: t.dateTime(),
        until: t.dateTime(),
        findings: t.array(findingShape),
      }),
      example: {
        month: '2026-11',
        time_zone: 'Asia/Seoul',
        working_hours: '09:00-19:00',
        working_days: 'mon-fri',
        from: '2026-10-31T15:00:00.000Z',
        until: '2026-11-30T15:00:00.000Z',
        findings: [],
      },
      handle: async ({ params, staff, request }) => {
        const done = await review.month(params.month);
        await write(staff, request, 'audit.review', 'ok', {
          month: params.month,
          findings: done.findings.length,
        });
        return done;
      },
    }),
  ];
}
