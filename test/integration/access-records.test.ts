import { type Kysely, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import type { Database } from '../../src/db/schema.js';
import { newId } from '../../src/lib/ids.js';
import { GENESIS_HASH, recordHash } from '../../src/modules/access-records/chain.js';
import { AccessRecordsRepo, type StoredAccessRecord } from '../../src/modules/access-records/repo.js';
import {
  type AccessRecordEntry,
  AccessRecordInputError,
  AccessRecords,
  decodeRecordCursor,
  encodeRecordCursor,
} from '../../src/modules/access-records/service.js';
import { backends, useTestDatabase } from '../helpers/database.js';

const STAFF = { kind: 'staff', staffId: '0b7e3c1a-2d4f-4a6b-8c9d-0e1f2a3b4c5d' } as const;

const entry = (overrides: Partial<AccessRecordEntry> = {}): AccessRecordEntry => ({
  actor: STAFF,
  clientAddress: '203.0.113.9',
  subjectId: newId(),
  action: 'user.view',
  outcome: 'ok',
  ...overrides,
});

/** A superuser's hand in the database: the append-only trigger off for one statement, as `psql` could. */
async function tamper(db: Kysely<Database>, statement: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql.raw('ALTER TABLE access_records DISABLE TRIGGER access_records_append_only').execute(trx);
    await sql.raw(statement).execute(trx);
    await sql.raw('ALTER TABLE access_records ENABLE TRIGGER access_records_append_only').execute(trx);
  });
}

describe.each(backends)('%s: the access records', (backend) => {
  const ctx = useTestDatabase(backend);
  const records = () => new AccessRecords(ctx.db, new AccessRecordsRepo(ctx.db));
  const lastSeq = async () => Number((await new AccessRecordsRepo(ctx.db).head()).lastSeq);

  it('chains each record to the one before, from the all-zero hash, and verifies', async () => {
    const service = records();
    const first = await service.append(entry({ reason: 'ticket 1', detail: { b: 1, a: 'x' } }));
    const second = await service.append(
      entry({ actor: { kind: 'cli', osUser: 'ops' }, clientAddress: null }),
    );
    expect(first).toMatchObject({ seq: '1', prevHash: GENESIS_HASH, reason: 'ticket 1' });
    expect(second).toMatchObject({ seq: '2', prevHash: first.hash, actorKind: 'cli', actor: 'ops' });
    expect(second.at.getTime()).toBeGreaterThanOrEqual(first.at.getTime());
    expect(await service.verify()).toEqual({
      ok: true,
      records: 2,
      anchorSeq: '1',
      lastSeq: '2',
      lastHash: second.hash,
    });
  });

  it('refuses a malformed entry as the caller’s bug, writing nothing', async () => {
    const before = await lastSeq();
    for (const bad of [
      entry({ action: 'view' }),
      entry({ action: 'User.View' }),
      entry({ subjectId: 'not-an-id' }),
      entry({ reason: 'x'.repeat(501) }),
      entry({ detail: { blob: 'x'.repeat(3000) } }),
      entry({ actor: { kind: 'cli', osUser: '' } }),
    ]) {
      await expect(records().append(bad)).rejects.toBeInstanceOf(AccessRecordInputError);
    }
    expect(await lastSeq()).toBe(before);
  });

  it('commits with the caller’s transaction, and rolls back with it', async () => {
    const service = records();
    const before = await lastSeq();
    await expect(
      ctx.db.transaction().execute(async (trx) => {
        await service.append(entry({ action: 'user.disable' }), trx);
        throw new Error('the action failed');
      }),
    ).rejects.toThrow('the action failed');
    expect(await lastSeq()).toBe(before);
    const kept = await ctx.db
      .transaction()
      .execute((trx) => service.append(entry({ action: 'user.disable' }), trx));
    expect(kept.seq).toBe(String(before + 1));
    expect((await service.verify()).ok).toBe(true);
  });

  it('refuses UPDATE, DELETE and TRUNCATE in the database itself', async () => {
    await records().append(entry());
    const refused = /append-only/;
    await expect(sql`UPDATE access_records SET reason = 'x'`.execute(ctx.db)).rejects.toThrow(refused);
    await expect(sql`DELETE FROM access_records`.execute(ctx.db)).rejects.toThrow(refused);
    await expect(sql`TRUNCATE access_records`.execute(ctx.db)).rejects.toThrow(refused);
    expect((await records().verify()).ok).toBe(true);
  });

  it('names a record changed by hand, and the one after a record whose hash was forged too', async () => {
    const service = records();
    const target = await service.append(entry({ reason: 'the real reason' }));
    await service.append(entry());
    await tamper(ctx.db, `UPDATE access_records SET reason = 'a better reason' WHERE seq = ${target.seq}`);
    expect(await service.verify()).toMatchObject({ ok: false, seq: target.seq, problem: 'hash_mismatch' });
    // A forger who also writes the changed record's right hash: the next record no longer chains to it.
    const forged = recordHash({ ...target, reason: 'a better reason' });
    await tamper(ctx.db, `UPDATE access_records SET hash = '${forged}' WHERE seq = ${target.seq}`);
    expect(await service.verify()).toMatchObject({
      ok: false,
      seq: String(Number(target.seq) + 1),
      problem: 'prev_hash_mismatch',
    });
    await tamper(
      ctx.db,
      `UPDATE access_records SET reason = 'the real reason', hash = '${target.hash}' WHERE seq = ${target.seq}`,
    );
    expect((await service.verify()).ok).toBe(true);
  });

  it('names the gap a deleted record leaves, in the middle and at the end', async () => {
    const service = records();
    const middle = await service.append(entry());
    const last = await service.append(entry());
    const saved = await ctx.db
      .selectFrom('access_records')
      .selectAll()
      .where('seq', '=', middle.seq)
      .execute();
    await tamper(ctx.db, `DELETE FROM access_records WHERE seq = ${middle.seq}`);
    expect(await service.verify()).toEqual({
      ok: false,
      records: Number(middle.seq) - 1,
      seq: last.seq,
      problem: 'missing_before',
      missingFrom: middle.seq,
    });
    const restore = (row: (typeof saved)[number]) =>
      ctx.db
        .insertInto('access_records')
        .values({ ...row, seq: String(row.seq), detail: JSON.stringify(row.detail) })
        .execute();
    await restore(saved[0] as (typeof saved)[number]);
    const [lastRow] = await ctx.db
      .selectFrom('access_records')
      .selectAll()
      .where('seq', '=', last.seq)
      .execute();
    await tamper(ctx.db, `DELETE FROM access_records WHERE seq = ${last.seq}`);
    expect(await service.verify()).toMatchObject({ ok: false, seq: last.seq, problem: 'missing_after' });
    await restore(lastRow as (typeof saved)[number]);
    expect((await service.verify()).ok).toBe(true);
    // A record added by hand after the head, its hash right: not appended, so found.
    const forged = { ...last, seq: String(Number(last.seq) + 1), prevHash: last.hash };
    await restore({
      ...(lastRow as (typeof saved)[number]),
      seq: forged.seq,
      prev_hash: forged.prevHash,
      hash: recordHash(forged),
    });
    expect(await service.verify()).toMatchObject({ ok: false, seq: forged.seq, problem: 'after_head' });
    await tamper(ctx.db, `DELETE FROM access_records WHERE seq = ${forged.seq}`);
    expect((await service.verify()).ok).toBe(true);
  });

  it('filters by actor, subject, action and period, newest first, a keyset page at a time', async () => {
    const service = records();
    const subjectId = newId();
    const other = { kind: 'staff', staffId: newId() } as const;
    const mine = [];
    for (let i = 0; i < 3; i++) mine.push(await service.append(entry({ actor: other, subjectId })));
    await service.append(entry({ actor: other, action: 'users.search', subjectId: null }));
    const first = await service.page({ actorKind: 'staff', actor: other.staffId, action: 'user.view' }, 2);
    expect(first.records.map((r) => r.seq)).toEqual([mine[2]?.seq, mine[1]?.seq]);
    expect(first.next).toBe(encodeRecordCursor(mine[1] as StoredAccessRecord));
    const before = decodeRecordCursor(first.next as string);
    expect(before).toEqual({ at: mine[1]?.at, seq: mine[1]?.seq });
    const second = await service.page({ actor: other.staffId, action: 'user.view', before }, 2);
    expect(second).toEqual({ records: [mine[0]], next: undefined });
    for (const bad of [
      '',
      '12',
      '2026-03-04T05:06:07.089Z_0',
      '2026-13-04T05:06:07.089Z_1',
      `x_${mine[1]?.seq}`,
    ]) {
      expect(decodeRecordCursor(bad)).toBeUndefined();
    }
    expect((await service.page({ subjectId }, 10)).records).toHaveLength(3);
    const at = mine[1]?.at as Date;
    const period = await service.page({ subjectId, from: at, until: new Date(at.getTime() + 1) }, 10);
    expect(period.records.every((r) => r.at.getTime() === at.getTime())).toBe(true);
    expect(period.records.map((r) => r.seq)).toContain(mine[1]?.seq);
  });

  it('sweeps what is past the retention and verifies from the new anchor; a kept record deleted is found', async () => {
    const service = records();
    const old = await service.append(entry());
    await new Promise((resolve) => setTimeout(resolve, 5));
    const cut = new Date();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const kept = await service.append(entry());
    const removed = await service.sweep(1, { now: new Date(cut.getTime() + 86_400_000) });
    expect(removed).toBe(Number(old.seq));
    expect(await service.verify()).toMatchObject({
      ok: true,
      records: 1,
      anchorSeq: kept.seq,
      lastSeq: kept.seq,
    });
    expect(await service.sweep(1, { now: new Date(cut.getTime() + 86_400_000) })).toBe(0);
    const next = await service.append(entry());
    expect((await service.verify()).ok).toBe(true);
    await tamper(ctx.db, `DELETE FROM access_records WHERE seq = ${kept.seq}`);
    expect(await service.verify()).toMatchObject({
      ok: false,
      seq: next.seq,
      problem: 'missing_before',
      missingFrom: kept.seq,
    });
  });
});

describe.runIf(backends.includes('postgres'))('postgres: appends from two instances at once', () => {
  const ctx = useTestDatabase('postgres');

  it('keep one chain: no fork, no gap, every record verifies, also while they are written', async () => {
    const other = await openDatabase({ url: ctx.database.url, embeddedDir: '', poolMax: 10 });
    try {
      const instances = [ctx.db, other.db].map((db) => new AccessRecords(db, new AccessRecordsRepo(db)));
      // Verifications run among the appends: the chain they see is whole at every moment.
      const verifying = Promise.all(Array.from({ length: 6 }, (_, i) => instances[i % 2]?.verify()));
      const appended = await Promise.all(
        Array.from({ length: 60 }, (_, i) => instances[i % 2]?.append(entry({ detail: { i } }))),
      );
      expect((await verifying).map((verdict) => verdict?.ok)).toEqual(Array(6).fill(true));
      const seqs = appended.map((record) => Number(record?.seq)).sort((a, b) => a - b);
      expect(seqs).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
      expect(new Set(appended.map((record) => record?.prevHash)).size).toBe(60);
      expect(await instances[1]?.verify()).toMatchObject({ ok: true, records: 60, lastSeq: '60' });
    } finally {
      await other.close();
    }
  });
});
