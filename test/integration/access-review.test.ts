import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/schema.js';
import { newId } from '../../src/lib/ids.js';
import { recordHash } from '../../src/modules/access-records/chain.js';
import { AccessRecordsRepo } from '../../src/modules/access-records/repo.js';
import { AccessReview } from '../../src/modules/access-records/review.js';
import { AccessReviewRepo } from '../../src/modules/access-records/review-repo.js';
import { AccessRecords } from '../../src/modules/access-records/service.js';
import { backends, useTestDatabase } from '../helpers/database.js';

interface At {
  at: string;
  actor: string;
  kind?: 'staff' | 'cli';
  action?: string;
  subjectId?: string | null;
  detail?: Record<string, unknown>;
}

/**
 * Appends a record as the service does (under the head's lock, chained) but at a chosen time: the review
 * is about when things happened, and the database's clock says only "now".
 */
async function appendAt(db: Kysely<Database>, record: At): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const repo = new AccessRecordsRepo(trx);
    const head = await repo.lockHead();
    const fields = {
      seq: (head.lastSeq + 1n).toString(),
      at: new Date(record.at),
      actorKind: record.kind ?? ('staff' as const),
      actor: record.actor,
      clientAddress: '203.0.113.7',
      subjectId: record.subjectId === undefined ? newId() : record.subjectId,
      action: record.action ?? 'user.view',
      reason: null,
      outcome: 'ok' as const,
      detail: record.detail ?? {},
      prevHash: head.lastHash,
    };
    await repo.insertLocked({ ...fields, hash: recordHash(fields) });
  });
}

const minutes = (start: string, i: number) => new Date(Date.parse(start) + i * 60_000).toISOString();

describe.each(backends)('%s: the monthly review of the access records', (backend) => {
  const ctx = useTestDatabase(backend);
  const review = () =>
    new AccessReview(new AccessReviewRepo(ctx.db), {
      timeZone: 'Asia/Seoul',
      workingHours: { start: 9 * 60, end: 19 * 60, text: '09:00-19:00' },
      workingDays: { days: [1, 2, 3, 4, 5], text: 'mon-fri' },
    });

  it('lists many unmasks or exports by one person, access out of hours and many people in an hour', async () => {
    const one = newId();
    const inMonth = [
      // 50 fields of one person shown in full by `unmasker` (11:00 in Seoul): at the bound.
      ...Array.from({ length: 50 }, (_, i) => ({
        at: minutes('2026-03-10T02:00:00Z', i),
        actor: 'unmasker',
        action: 'user.unmask.email',
        subjectId: one,
      })),
      // 49 by `careful`: under it; and 29 people in one hour, under that bound too.
      ...Array.from({ length: 49 }, (_, i) => ({
        at: minutes('2026-03-10T04:00:00Z', i),
        actor: 'careful',
        action: 'user.unmask.phone',
        subjectId: one,
      })),
      ...Array.from({ length: 29 }, (_, i) => ({ at: minutes('2026-03-11T01:00:00Z', i), actor: 'careful' })),
      // One export of 1,500 rows, and a small one by `careful`.
      {
        at: '2026-03-11T03:00:00Z',
        actor: 'exporter',
        action: 'users.export',
        subjectId: null,
        detail: { query: 'kim', rows: 1500 },
      },
      {
        at: '2026-03-11T03:30:00Z',
        actor: 'careful',
        action: 'users.export',
        subjectId: null,
        detail: { query: 'lee', rows: 12 },
      },
      // 03:30 and 19:00 in Seoul: outside the working day.
      { at: '2026-03-12T18:30:00Z', actor: 'night' },
      { at: '2026-03-13T10:00:00Z', actor: 'night' },
      // 11:00 on Saturday 14 March and on Sunday 15 March in Seoul (still Friday and Saturday in UTC); 18:59 on
      // Friday 13 March is the last minute of the working week.
      { at: '2026-03-14T02:00:00Z', actor: 'weekend' },
      { at: '2026-03-15T02:00:00Z', actor: 'weekend' },
      { at: '2026-03-13T09:59:00Z', actor: 'friday' },
      // 30 people in one clock hour by a command's operator (10:00–10:29 in Seoul).
      ...Array.from({ length: 30 }, (_, i) => ({
        at: minutes('2026-03-13T01:00:00Z', i),
        actor: 'ops',
        kind: 'cli' as const,
      })),
    ];
    const outOfMonth = [
      // 23:59 on 28 February and 00:00 on 1 April in Seoul: another month's, although March in UTC.
      { at: '2026-02-28T14:59:00Z', actor: 'early' },
      { at: '2026-03-31T15:00:00Z', actor: 'late' },
    ];
    for (const record of [...outOfMonth, ...inMonth]) await appendAt(ctx.db, record);

    expect(await review().month('2026-03')).toEqual({
      month: '2026-03',
      time_zone: 'Asia/Seoul',
      working_hours: '09:00-19:00',
      working_days: 'mon-fri',
      from: '2026-02-28T15:00:00.000Z',
      until: '2026-03-31T15:00:00.000Z',
      findings: [
        { kind: 'unmasks', actor_kind: 'staff', actor: 'unmasker', count: 50, threshold: 50 },
        {
          kind: 'exports',
          actor_kind: 'staff',
          actor: 'exporter',
          count: 1,
          rows: 1500,
          threshold: { exports: 5, rows: 1000 },
        },
        {
          kind: 'outside_hours',
          actor_kind: 'staff',
          actor: 'night',
          count: 2,
          first: '2026-03-12T18:30:00.000Z',
          last: '2026-03-13T10:00:00.000Z',
        },
        {
          kind: 'outside_hours',
          actor_kind: 'staff',
          actor: 'weekend',
          count: 2,
          first: '2026-03-14T02:00:00.000Z',
          last: '2026-03-15T02:00:00.000Z',
        },
        {
          kind: 'many_subjects',
          actor_kind: 'cli',
          actor: 'ops',
          hour: '2026-03-13T01:00:00.000Z',
          subjects: 30,
          threshold: 30,
        },
      ],
    });
    // Appended as the service appends: the chain still verifies.
    expect(await new AccessRecords(ctx.db, new AccessRecordsRepo(ctx.db)).verify()).toMatchObject({
      ok: true,
      records: inMonth.length + outOfMonth.length,
    });
  });

  it('finds nothing in a quiet month, and refuses what is not a month', async () => {
    expect((await review().month('2025-01')).findings).toEqual([]);
    await expect(review().month('2026-13')).rejects.toBeInstanceOf(RangeError);
    await expect(review().month('March')).rejects.toBeInstanceOf(RangeError);
  });
});
